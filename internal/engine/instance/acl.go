package instance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// POSIX access ACLs as Linux stores them in the system.posix_acl_access attribute
// (include/uapi/linux/posix_acl_xattr.h): a version, then (tag, perm, id) entries.
const (
	aclXattr   = "system.posix_acl_access"
	aclVersion = 2

	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclGroup    = 0x08
	aclMask     = 0x10
	aclOther    = 0x20

	aclNoID     = 0xffffffff
	aclExec     = 1
	aclItemSize = 8 // bytes of one entry
)

type aclItem struct {
	tag, perm uint16
	id        uint32
}

// readACL is path's access ACL; nil when it has only its mode bits.
func readACL(path string) ([]aclItem, error) {
	buf := make([]byte, 4+32*aclItemSize)
	n, err := unix.Getxattr(path, aclXattr, buf)
	if errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP) {
		return nil, nil
	}
	if errors.Is(err, unix.ERANGE) {
		size, serr := unix.Getxattr(path, aclXattr, nil)
		if serr != nil {
			return nil, serr
		}
		buf = make([]byte, size)
		n, err = unix.Getxattr(path, aclXattr, buf)
	}
	if err != nil {
		return nil, err
	}
	buf = buf[:n]
	if len(buf) < 4 || binary.LittleEndian.Uint32(buf) != aclVersion || (len(buf)-4)%aclItemSize != 0 {
		return nil, fmt.Errorf("%s: an access ACL this program cannot read", path)
	}
	var acl []aclItem
	for b := buf[4:]; len(b) > 0; b = b[aclItemSize:] {
		acl = append(acl, aclItem{binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:]), binary.LittleEndian.Uint32(b[4:])})
	}
	return acl, nil
}

// mayEnter reports whether u may search (pass through) the directory st describes,
// by its ACL when it has one (POSIX.1e's order: owner, named user, groups, others),
// else by its mode. The server runs with its primary group only (sysProcAttr).
func (u User) mayEnter(st *syscall.Stat_t, acl []aclItem) bool {
	mode := uint16(st.Mode)
	if st.Uid == u.UID {
		return mode&0o100 != 0
	}
	if acl == nil {
		if st.Gid == u.GID {
			return mode&0o010 != 0
		}
		return mode&0o001 != 0
	}
	mask := uint16(7)
	for _, e := range acl {
		if e.tag == aclMask {
			mask = e.perm
		}
	}
	for _, e := range acl {
		if e.tag == aclUser && e.id == u.UID {
			return e.perm&mask&aclExec != 0
		}
	}
	inGroup, groupOK := false, false
	for _, e := range acl {
		if (e.tag == aclGroupObj && st.Gid == u.GID) || (e.tag == aclGroup && e.id == u.GID) {
			inGroup = true
			groupOK = groupOK || e.perm&mask&aclExec != 0
		}
	}
	if inGroup {
		return groupOK
	}
	return mode&0o001 != 0
}

// grantSearch adds an ACL entry to dir that lets user uid search it, and nothing
// else: no one else's access changes. The mask (the group bits ls shows) gains the
// search bit only when no other entry it limits has that bit, since it would lift
// theirs too; then the grant is refused.
func grantSearch(dir string, st *syscall.Stat_t, uid uint32) error {
	acl, err := readACL(dir)
	if err != nil {
		return err
	}
	if acl == nil {
		m := uint16(st.Mode)
		acl = []aclItem{{aclUserObj, m >> 6 & 7, aclNoID}, {aclGroupObj, m >> 3 & 7, aclNoID}, {aclOther, m & 7, aclNoID}}
	}
	i := slices.IndexFunc(acl, func(e aclItem) bool { return e.tag == aclUser && e.id == uid })
	if i < 0 {
		acl = append(acl, aclItem{aclUser, 0, uid})
		i = len(acl) - 1
	}
	acl[i].perm |= aclExec
	m := slices.IndexFunc(acl, func(e aclItem) bool { return e.tag == aclMask })
	if m < 0 {
		// A minimal ACL: the mask starts as the owning group's bits, so that group's
		// access stays what it was.
		g := slices.IndexFunc(acl, func(e aclItem) bool { return e.tag == aclGroupObj })
		acl = append(acl, aclItem{aclMask, acl[g].perm, aclNoID})
		m = len(acl) - 1
	}
	if acl[m].perm&aclExec == 0 {
		for j, e := range acl {
			if j != i && (e.tag == aclUser || e.tag == aclGroupObj || e.tag == aclGroup) && e.perm&aclExec != 0 {
				return fmt.Errorf("its ACL's mask withholds search from an entry that has it, and granting it would lift that entry too")
			}
		}
		acl[m].perm |= aclExec
	}
	slices.SortFunc(acl, func(a, b aclItem) int {
		if a.tag != b.tag {
			return int(a.tag) - int(b.tag)
		}
		return int(int64(a.id) - int64(b.id))
	})
	return unix.Setxattr(dir, aclXattr, encodeACL(acl), 0)
}

// encodeACL is acl in the attribute's format; acl must be sorted by tag, then id.
func encodeACL(acl []aclItem) []byte {
	buf := binary.LittleEndian.AppendUint32(nil, aclVersion)
	for _, e := range acl {
		buf = binary.LittleEndian.AppendUint16(buf, e.tag)
		buf = binary.LittleEndian.AppendUint16(buf, e.perm)
		buf = binary.LittleEndian.AppendUint32(buf, e.id)
	}
	return buf
}
