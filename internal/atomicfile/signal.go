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

func track(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = true
	if temps.sig == nil {
		temps.sig = make(chan os.Signal, 1)
		signal.Notify(temps.sig, syscall.SIGINT, syscall.SIGTERM)
		go onSignal(temps.sig)
	}
}

func untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
	if len(temps.names) == 0 && temps.sig != nil {
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
