//go:build linux

package emulator

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"tierbench/internal/device"
)

// node is go-fuse's loopback node with opens and creates wrapped so that file data goes
// through the device. Metadata operations (lookup, getattr, rename, unlink) go straight
// to the backing directory and cost no device time.
type node struct {
	*fs.LoopbackNode
	dev *timedDevice
}

var (
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeCreater     = (*node)(nil)
	_ fs.NodeWrapChilder = (*node)(nil)
)

func newRoot(backing string, dev *timedDevice) (fs.InodeEmbedder, error) {
	root, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, err
	}
	return &node{LoopbackNode: root.(*fs.LoopbackNode), dev: dev}, nil
}

// WrapChild makes every node below the root one of ours.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	if ln, ok := ops.(*fs.LoopbackNode); ok {
		return &node{LoopbackNode: ln, dev: n.dev}
	}
	return ops
}

// openFlags are the FUSE open flags of every file: direct I/O, so every read and write
// reaches the model (the page cache is the pagecache model's job), and parallel direct
// writes, so a queue of writes to one file is not serialised by the kernel's inode lock.
const openFlags = fuse.FOPEN_DIRECT_IO | fuse.FOPEN_PARALLEL_DIRECT_WRITES

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	// The backing file is opened without O_DIRECT: alignment rules of the backing file
	// system are not the application's business; O_DIRECT is a flag for the model.
	fh, _, errno := n.LoopbackNode.Open(ctx, flags&^syscall.O_DIRECT)
	if errno != 0 {
		return nil, 0, errno
	}
	return n.wrap(fh, flags), openFlags, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	in, fh, _, errno := n.LoopbackNode.Create(ctx, name, flags&^syscall.O_DIRECT, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return in, n.wrap(fh, flags), openFlags, 0
}

// Tmpfile (O_TMPFILE) is refused so no file escapes the model; callers fall back to a
// named file.
func (n *node) Tmpfile(ctx context.Context, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// CopyFileRange is refused so the kernel falls back to reads and writes the model sees.
func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut uint64, length uint64, flags uint64) (uint32, syscall.Errno) {
	return 0, syscall.EXDEV
}

// wrap turns go-fuse's loopback handle into ours. The loopback handle is used for its
// fd only: it offers the kernel passthrough (FilePassthroughFder), which would take
// reads and writes away from the model, so it must not be returned as is.
func (n *node) wrap(fh fs.FileHandle, flags uint32) fs.FileHandle {
	lf := fh.(*fs.LoopbackFile)
	fd, _ := lf.PassthroughFd()
	f := &file{lf: lf, fd: fd, dev: n.dev, direct: flags&syscall.O_DIRECT != 0}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil {
		f.ino = st.Ino
		n.dev.openFile(st.Ino, st.Size)
	}
	return f
}

// file is an open file whose data operations go through the device. It implements the
// same interfaces as the loopback file except passthrough and locks (the kernel keeps
// POSIX and flock locks locally when the file system does not).
type file struct {
	lf     *fs.LoopbackFile
	fd     int
	ino    uint64
	direct bool
	dev    *timedDevice
}

var (
	_ fs.FileReader    = (*file)(nil)
	_ fs.FileWriter    = (*file)(nil)
	_ fs.FileFsyncer   = (*file)(nil)
	_ fs.FileFlusher   = (*file)(nil)
	_ fs.FileReleaser  = (*file)(nil)
	_ fs.FileGetattrer = (*file)(nil)
	_ fs.FileSetattrer = (*file)(nil)
	_ fs.FileLseeker   = (*file)(nil)
	_ fs.FileAllocater = (*file)(nil)
)

func (f *file) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	var n int
	var err error
	size := int64(len(buf))
	fileSize := f.size()
	// the device reads what the file holds: a read past the end is cut short
	size = max(min(size, fileSize-off), 0)
	io := func() error {
		n, err = syscall.Pread(f.fd, buf, off)
		return err
	}
	if size == 0 {
		io()
	} else {
		f.dev.do(device.Request{Op: device.OpRead, Offset: off, Size: size, File: f.ino, Direct: f.direct}, fileSize, io)
	}
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(buf[:n]), 0
}

func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	var n int
	var err error
	f.dev.do(device.Request{Op: device.OpWrite, Offset: off, Size: int64(len(data)), File: f.ino, Direct: f.direct}, f.size(), func() error {
		n, err = syscall.Pwrite(f.fd, data, off)
		return err
	})
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	return uint32(n), 0
}

// Fsync (fsync, fdatasync) is the device's flush; the backing file is synced too unless
// the emulator was told not to bother (see Options.NoBackingSync).
func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	var err error
	f.dev.do(device.Request{Op: device.OpFlush, File: f.ino, Direct: f.direct}, 0, func() error {
		if !f.dev.noBackingSync {
			err = syscall.Fdatasync(f.fd)
		}
		return err
	})
	return fs.ToErrno(err)
}

// size is the backing file's size now (0 if it cannot be read).
func (f *file) size() int64 {
	var st syscall.Stat_t
	if syscall.Fstat(f.fd, &st) != nil {
		return 0
	}
	return st.Size
}

// Flush is close(2) on a descriptor, not a cache flush: no device time.
func (f *file) Flush(ctx context.Context) syscall.Errno { return f.lf.Flush(ctx) }

func (f *file) Release(ctx context.Context) syscall.Errno { return f.lf.Release(ctx) }

func (f *file) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return f.lf.Getattr(ctx, out)
}

func (f *file) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return f.lf.Setattr(ctx, in, out)
}

func (f *file) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return f.lf.Lseek(ctx, off, whence)
}

func (f *file) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	return f.lf.Allocate(ctx, off, size, mode)
}
