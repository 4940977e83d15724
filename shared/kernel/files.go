package kernel

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/lamgo/lam/shared/wire"
)

// fileGet sends a program (mpirun -s) in chunks.
func (k *Kernel) fileGet(r *request, m *wire.FileGet) {
	path, err := lookPath(m.Path, os.Getenv("PATH"), "")
	if err != nil {
		r.fail(wire.CodeNoEntry, "n%d: no program %s", k.cfg.Self, m.Path)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		r.fail(wire.CodePerm, "n%d: %v", k.cfg.Self, err)
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > wire.MaxFile {
		r.fail(wire.CodeFailed, "n%d: %s is not a file of at most %d bytes", k.cfg.Self, path, wire.MaxFile)
		return
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if r.send(&wire.FileChunk{Data: append([]byte(nil), buf[:n]...)}) != nil {
				return
			}
		}
		if errors.Is(err, io.EOF) {
			r.finish(&wire.OK{})
			return
		}
		if err != nil {
			r.fail(wire.CodeFailed, "n%d: read %s: %v", k.cfg.Self, path, err)
			return
		}
		if r.ctx.Err() != nil {
			return
		}
	}
}

// filePut stores a loaded program in the session directory, owner-only.
func (k *Kernel) filePut(r *request, m *wire.FilePut) {
	path := k.cfg.Session.File("lam-load-" + m.Name)
	if path == "" {
		r.fail(wire.CodeFailed, "bad file name %q", m.Name)
		return
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if m.Append {
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW, 0o700)
	if err != nil {
		code := wire.CodeFailed
		if errors.Is(err, fs.ErrNotExist) {
			code = wire.CodeNoEntry
		}
		r.fail(code, "n%d: %v", k.cfg.Self, err)
		return
	}
	// A program that cannot be stored whole is removed: nothing runs it,
	// and a full file system stays full until lamhalt otherwise.
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(m.Data)) > wire.MaxFile {
		f.Close()
		os.Remove(path)
		r.fail(wire.CodeFull, "n%d: %s would exceed %d bytes", k.cfg.Self, path, wire.MaxFile)
		return
	}
	_, werr := f.Write(m.Data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(path)
		r.fail(wire.CodeFailed, "n%d: write %s: %v", k.cfg.Self, path, err)
		return
	}
	r.finish(&wire.FilePath{Path: path})
}
