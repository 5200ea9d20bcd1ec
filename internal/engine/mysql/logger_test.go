package mysql

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"tierbench/internal/engine"
)

// TestDriverLogsNothing: a server that drops the connection makes go-sql-driver log
// the cause ("[mysql] ... unexpected EOF"); tierbench reports the error it returns,
// and nothing reaches stderr beside it.
func TestDriverLogsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // before the handshake
		}
	}()

	// Capture file descriptor 2 itself: the driver's logger holds os.Stderr's file.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup3(int(w.Fd()), 2, 0); err != nil {
		t.Fatal(err)
	}
	_, openErr := engine.Open(context.Background(), engine.Config{Name: "mysql", DSN: "bench@tcp(" + ln.Addr().String() + ")/db?timeout=2s"})
	unix.Dup3(saved, 2, 0)
	unix.Close(saved)
	w.Close()
	logged, _ := io.ReadAll(r)
	if openErr == nil || !strings.Contains(openErr.Error(), "mysql: cannot connect to") {
		t.Errorf("error %v, want one saying it cannot connect", openErr)
	}
	if len(logged) > 0 {
		t.Errorf("stderr got %q", logged)
	}
}
