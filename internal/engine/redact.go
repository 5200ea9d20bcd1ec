package engine

import (
	"net/url"
	"regexp"
	"strings"
)

const redacted = "xxxxx"

var (
	// key=value connection strings (libpq): password=secret or password='se cret'.
	kvPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)
	// go-sql-driver/mysql DSNs: user:secret@tcp(host)/db.
	mysqlPassword = regexp.MustCompile(`^([^:@/]*):(.*)@([a-z0-9]*\(|/)`)
)

// RedactDSN returns dsn with its password replaced by xxxxx, for messages and logs.
// It knows URLs (postgres://u:p@h/db), libpq key=value strings and
// go-sql-driver/mysql DSNs (u:p@tcp(h:3306)/db).
func RedactDSN(dsn string) string {
	if strings.Contains(dsn, "://") {
		if u, err := url.Parse(dsn); err == nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
			q := u.Query()
			if q.Has("password") {
				q.Set("password", redacted)
				u.RawQuery = q.Encode()
			}
			return u.String()
		}
		// Unparsable URL: blank everything between "://" and the last '@'.
		i := strings.Index(dsn, "://") + 3
		if j := strings.LastIndex(dsn, "@"); j > i {
			return dsn[:i] + redacted + dsn[j:]
		}
		return dsn
	}
	if kvPassword.MatchString(dsn) {
		return kvPassword.ReplaceAllString(dsn, "${1}"+redacted)
	}
	return mysqlPassword.ReplaceAllString(dsn, "${1}:"+redacted+"@${3}")
}

// RedactError returns err with every occurrence of secret in its text replaced, on one
// line; errors.Is and errors.As still see err.
func RedactError(err error, secret string) error {
	if err == nil {
		return nil
	}
	return &redactedError{err: err, secret: secret}
}

type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	msg := e.err.Error()
	if e.secret != "" {
		msg = strings.ReplaceAll(msg, e.secret, redacted)
	}
	msg = strings.ReplaceAll(msg, ":\n\t", ": ")
	msg = strings.ReplaceAll(msg, "\n\t", "; ")
	return strings.ReplaceAll(msg, "\n", "; ")
}

func (e *redactedError) Unwrap() error { return e.err }
