package kernel

import (
	"errors"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// sigFuse warns the processes of a node about to be removed (lamshrink -w,
// LAM's SIGFUSE). SIGURG is ignored by default, so a program that does not
// care is not harmed.
const sigFuse = syscall.SIGURG

// watchSession stops the lamd when its session directory or socket is
// removed (by lamwipe, or a cleaner of /tmp), instead of lingering
// unreachable.
func (k *Kernel) watchSession() (stop func(), err error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(k.cfg.Session.Path); err != nil {
		w.Close()
		return nil, err
	}
	sock := k.cfg.Session.Socket()
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
				if gone && (ev.Name == sock || ev.Name == k.cfg.Session.Path) {
					k.Stop(errors.New("the session directory or socket was removed"))
					return
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return func() { w.Close() }, nil
}
