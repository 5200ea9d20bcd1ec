package tpch

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/engine"
)

// tblFields splits one .tbl line into its fields (every field ends with '|').
func tblFields(line string) []string {
	return strings.Split(strings.TrimSuffix(line, "|"), "|")
}

// tblLines calls fn for every non-empty line of a .tbl file.
func tblLines(data []byte, fn func(line string) error) error {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(string(line)); err != nil {
			return err
		}
	}
	return nil
}

// rowArgs turns the fields of a row of t into statement arguments: identifiers and
// integers as int64, everything else as the text dbgen wrote, which every driver
// passes for the server to convert to DECIMAL or DATE.
func rowArgs(t table, fields []string) ([]any, error) {
	if len(fields) != len(t.columns) {
		return nil, fmt.Errorf("%s row has %d fields, want %d", t.name, len(fields), len(t.columns))
	}
	args := make([]any, len(fields))
	for i, c := range t.columns {
		if c.typ == typeKey || c.typ == typeInteger {
			v, err := strconv.ParseInt(fields[i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.name, c.name, err)
			}
			args[i] = v
			continue
		}
		args[i] = fields[i]
	}
	return args, nil
}

func insertSQL(t table, d *engine.Dialect) string {
	params := make([]string, len(t.columns))
	for i := range params {
		params[i] = d.Param(i + 1)
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name,
		strings.Join(t.columnNames(), ", "), strings.Join(params, ", "))
}

// refreshFunc runs one refresh function on a pinned connection.
type refreshFunc func(ctx context.Context, conn *sql.Conn, d *engine.Dialect, set *updateSet) (int, error)

// timeRefresh runs rf and returns its interval, unrounded: from its submission to the
// commit of its last transaction (Clause 5.3, timing of the refresh functions).
func timeRefresh(ctx context.Context, sess engine.Session, d *engine.Dialect, set *updateSet, rf refreshFunc) (float64, int, error) {
	start := time.Now()
	n, err := rf(ctx, sess.Conn(), d, set)
	return time.Since(start).Seconds(), n, err
}

// rf1 is the new-sales refresh function (Clause 2.5.2): every order of the update set
// is inserted with its line items in one transaction. It returns the orders inserted.
func rf1(ctx context.Context, conn *sql.Conn, d *engine.Dialect, set *updateSet) (int, error) {
	orders, _ := tableByName("orders")
	lineitem, _ := tableByName("lineitem")
	orderRows, itemRows, err := set.rf1Rows()
	if err != nil {
		return 0, fmt.Errorf("RF1: %w", err)
	}
	items := map[int64][][]any{}
	err = tblLines(itemRows, func(line string) error {
		args, err := rowArgs(lineitem, tblFields(line))
		if err != nil {
			return err
		}
		k := args[0].(int64)
		items[k] = append(items[k], args)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("RF1 update set %d: %w", set.n, err)
	}
	insOrder, err := conn.PrepareContext(ctx, insertSQL(orders, d))
	if err != nil {
		return 0, fmt.Errorf("RF1: prepare: %w", err)
	}
	defer insOrder.Close()
	insItem, err := conn.PrepareContext(ctx, insertSQL(lineitem, d))
	if err != nil {
		return 0, fmt.Errorf("RF1: prepare: %w", err)
	}
	defer insItem.Close()

	count := 0
	err = tblLines(orderRows, func(line string) error {
		// Checked per order: a driver need not look at ctx before a statement.
		if err := ctx.Err(); err != nil {
			return err
		}
		order, err := rowArgs(orders, tblFields(line))
		if err != nil {
			return err
		}
		k := order[0].(int64)
		err = inTransaction(ctx, conn, func() error {
			if _, err := insOrder.ExecContext(ctx, order...); err != nil {
				return fmt.Errorf("insert order %d: %w", k, err)
			}
			for _, item := range items[k] {
				if _, err := insItem.ExecContext(ctx, item...); err != nil {
					return fmt.Errorf("insert lineitem of order %d: %w", k, err)
				}
			}
			return nil
		})
		delete(items, k)
		count++
		return err
	})
	if err != nil {
		return count, fmt.Errorf("RF1 update set %d: %w", set.n, err)
	}
	if len(items) > 0 {
		return count, fmt.Errorf("RF1 update set %d: %d orders have line items but no order row", set.n, len(items))
	}
	return count, nil
}

// rf2 is the old-sales refresh function (Clause 2.5.3): for every key of delete.N,
// one transaction deletes the order's line items and then the order.
func rf2(ctx context.Context, conn *sql.Conn, d *engine.Dialect, set *updateSet) (int, error) {
	keys, err := set.rf2Rows()
	if err != nil {
		return 0, fmt.Errorf("RF2: %w", err)
	}
	delItems, err := conn.PrepareContext(ctx, "DELETE FROM lineitem WHERE l_orderkey = "+d.Param(1))
	if err != nil {
		return 0, fmt.Errorf("RF2: prepare: %w", err)
	}
	defer delItems.Close()
	delOrder, err := conn.PrepareContext(ctx, "DELETE FROM orders WHERE o_orderkey = "+d.Param(1))
	if err != nil {
		return 0, fmt.Errorf("RF2: prepare: %w", err)
	}
	defer delOrder.Close()

	count := 0
	err = tblLines(keys, func(line string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := strconv.ParseInt(strings.TrimSpace(tblFields(line)[0]), 10, 64)
		if err != nil {
			return fmt.Errorf("delete key %q: %w", line, err)
		}
		count++
		return inTransaction(ctx, conn, func() error {
			if _, err := delItems.ExecContext(ctx, k); err != nil {
				return fmt.Errorf("delete line items of order %d: %w", k, err)
			}
			if _, err := delOrder.ExecContext(ctx, k); err != nil {
				return fmt.Errorf("delete order %d: %w", k, err)
			}
			return nil
		})
	})
	if err != nil {
		return count, fmt.Errorf("RF2 update set %d: %w", set.n, err)
	}
	return count, nil
}

// inTransaction runs fn between BEGIN and COMMIT issued as statements on conn. The
// statements prepared on conn then run inside the transaction as they are; a
// database/sql Tx would prepare them again for every order.
func inTransaction(ctx context.Context, conn *sql.Conn, fn func() error) error {
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(); err != nil {
		// Roll back even when ctx has ended, so the connection goes back clean.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		conn.ExecContext(rctx, "ROLLBACK")
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// refreshPair runs RF1 then RF2 of one update set on sess.
func refreshPair(ctx context.Context, sess engine.Session, d *engine.Dialect, set *updateSet) (RefreshPair, error) {
	pair := RefreshPair{UpdateSet: set.n}
	var err error
	if pair.RF1, _, err = timeRefresh(ctx, sess, d, set, rf1); err != nil {
		return pair, err
	}
	if pair.RF2, _, err = timeRefresh(ctx, sess, d, set, rf2); err != nil {
		return pair, err
	}
	return pair, nil
}
