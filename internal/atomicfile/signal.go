package atomicfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Temporary files are removed when the process is interrupted (SIGINT,
// SIGTERM) while they exist: a report of a large document killed midway
// left `.NAME.tmp*` files of up to 135 MB. The handler is installed only
// while a temporary file exists, so commands that handle these signals
// themselves (klog --follow) keep them otherwise. SIGKILL cannot be
// caught; what it leaves is a hidden temporary file next to the target,
// never a damaged target.
var temps struct {
	sync.Mutex
	names map[string]bool
	sig   chan os.Signal
}

// createTracked creates a temporary file with create and records it, the
// handler installed first and the lock held throughout: a signal that
// arrives while the file is being created waits for its name, so no
// window leaves a file the handler does not know.
func createTracked(create func() (*os.File, error)) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.sig == nil {
		temps.sig = make(chan os.Signal, 1)
		signal.Notify(temps.sig, syscall.SIGINT, syscall.SIGTERM)
		go onSignal(temps.sig)
	}
	f, err := create()
	if err != nil {
		if len(temps.names) == 0 {
			stopLocked()
		}
		return nil, err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[f.Name()] = true
	return f, nil
}

func untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
	if len(temps.names) == 0 {
		stopLocked()
	}
}

// stopLocked removes the handler; temps is locked.
func stopLocked() {
	if temps.sig != nil {
		signal.Stop(temps.sig)
		close(temps.sig)
		temps.sig = nil
	}
}

// onSignal removes the temporary files, then dies of the signal as the
// process would have without the handler.
func onSignal(ch chan os.Signal) {
	s, ok := <-ch
	if !ok {
		return
	}
	temps.Lock()
	for n := range temps.names {
		os.Remove(n)
	}
	temps.Unlock()
	signal.Reset(s)
	if ss, ok := s.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), ss)
	}
	os.Exit(128 + int(s.(syscall.Signal)))
}
