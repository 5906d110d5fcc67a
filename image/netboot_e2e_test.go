package image_test

// The netboot end-to-end test: a QEMU guest with no disk boots from its
// network card with QEMU's own iPXE ROM, which fetches an iPXE script by
// TFTP (QEMU's user-mode network serves the directory), chains to a second
// script on an HTTP server this test runs on 127.0.0.1 (10.0.2.2 to the
// guest) and loads the kernel and the live image from it. The image brings
// up its network (fwcheck.post=), runs 3 S3 cycles with its journal in
// memory and posts each journal record and the results document to the
// same server. The server is taken down while cycle 2 sleeps and comes
// back at cycle 3: every record must still arrive, and each only once.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/post"
	"github.com/fwcheck/fwcheck/tests"
)

// labServer is the test's HTTP server on a fixed loopback port: the boot
// files and the post receiver. It can be stopped and started again.
type labServer struct {
	t    *testing.T
	addr string
	h    http.Handler
	mu   sync.Mutex
	srv  *http.Server
	done chan struct{}
}

func startLabServer(t *testing.T, h http.Handler) *labServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &labServer{t: t, addr: l.Addr().String(), h: h}
	s.serve(l)
	t.Cleanup(s.stop)
	return s
}

func (s *labServer) serve(l net.Listener) {
	s.srv = &http.Server{Handler: s.h}
	s.done = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) { _ = srv.Serve(l); close(done) }(s.srv, s.done)
}

func (s *labServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		_ = s.srv.Close()
		<-s.done
		s.srv = nil
	}
}

func (s *labServer) restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return nil
	}
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.serve(l)
	return nil
}

// consoleActions runs an action once when the console first shows a string.
type consoleActions struct {
	mu      sync.Mutex
	buf     strings.Builder
	actions []consoleAction
}

type consoleAction struct {
	want string
	do   func()
	done bool
}

func (c *consoleActions) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	for i := range c.actions {
		a := &c.actions[i]
		if !a.done && strings.Contains(c.buf.String(), a.want) {
			a.done = true
			go a.do()
		}
	}
	return len(p), nil
}

func TestNetbootPostsS3Run(t *testing.T) {
	m := qemu.SeaBIOS
	kernel, initramfs := liveImage(t, m)
	if _, err := os.Stat("/usr/lib/ipxe/qemu/efi-virtio.rom"); err != nil {
		t.Skipf("QEMU's iPXE ROM for virtio-net is missing (apt-get install ipxe-qemu): %v", err)
	}

	var rcv post.Receiver
	var mu sync.Mutex
	posts := map[string]int{} // POSTs per record id, duplicates included
	mux := http.NewServeMux()
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		rcv.ServeHTTP(w, r)
	})
	mux.HandleFunc("/vmlinuz", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, kernel) })
	mux.HandleFunc("/initramfs", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, initramfs) })
	var script string
	mux.HandleFunc("/boot.ipxe", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, script) })
	srv := startLabServer(t, mux)
	_, port, _ := net.SplitHostPort(srv.addr)
	base := "http://10.0.2.2:" + port
	// fwcheck.disk-wait: there is no disk to wait for; it only shortens
	// the test's wait for the results disk.
	args := qemu.KernelCmdline("") + " fwcheck.after=poweroff fwcheck.run=s3 fwcheck.s3=3 fwcheck.s3.sleep=6s fwcheck.s3.awake=1s" +
		" fwcheck.disk-wait=5s fwcheck.post=" + base + "/post"
	script = "#!ipxe\nkernel " + base + "/vmlinuz " + args + "\ninitrd " + base + "/initramfs\nboot\n"

	// QEMU's TFTP server hands iPXE the first script, which chains to
	// the HTTP one.
	tftp := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tftp, "fwcheck.ipxe"), []byte("#!ipxe\ndhcp\nchain "+base+"/boot.ipxe\n"), 0o644))

	var downErr error
	con := &consoleActions{actions: []consoleAction{
		{want: "s3: cycle 2/3: suspending", do: srv.stop},
		{want: "s3: cycle 3/3: suspending", do: func() { downErr = srv.restart() }},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), powerTimeout)
	defer cancel()
	start := time.Now()
	out, err := qemu.Run(ctx, qemu.Config{Machine: m, Console: con, Net: &qemu.Net{TFTP: tftp, BootFile: "fwcheck.ipxe"}})
	console := string(out)
	require.NoError(t, err, "netboot; console:\n%s", tail(out))
	t.Logf("%s netboot with 3 S3 cycles: QEMU ran %v", m.Name, time.Since(start).Round(100*time.Millisecond))
	require.NoError(t, downErr, "restarting the server")
	for _, a := range con.actions {
		require.True(t, a.done, "the console never showed %q:\n%s", a.want, tail(out))
	}

	assert.Contains(t, console, "fwcheck: network: eth0 up", "the image brought up its network")
	assert.Contains(t, console, "the journal is kept in memory and each record posted to "+base+"/post")
	postedLine := regexp.MustCompile(`posted \d+ records to \S+[^\r\n]*`).FindString(console)
	t.Logf("console: %s", postedLine)
	assert.Regexp(t, `^posted 9 records to \S+ \(\d+ attempts retried\)`, postedLine, "the server's absence was noticed and overcome")

	d := results(t, console)
	s3 := resultByID(d, "s3")
	require.NotNil(t, s3)
	assert.Equal(t, tests.StatusPassed, s3.Status, "%s\n%s", infoText(s3), tail(out))

	// The server has every record, once.
	var evs []string
	var docs []json.RawMessage
	for _, e := range rcv.Records() {
		switch e.Kind {
		case post.KindJournal:
			var r struct {
				Event string `json:"event"`
				Cycle int    `json:"cycle"`
			}
			require.NoError(t, json.Unmarshal(e.Record, &r))
			assert.Equal(t, "s3", e.Journal)
			evs = append(evs, strings.TrimSpace(fmt.Sprintf("%s %d", r.Event, r.Cycle)))
		case post.KindResults:
			docs = append(docs, e.Document)
		}
	}
	assert.Equal(t, []string{"run 0", "start 1", "outcome 1", "start 2", "outcome 2", "start 3", "outcome 3", "done 0"}, evs,
		"every cycle's records, in order")
	require.Len(t, docs, 1, "the results document, once")
	js, err := image.ExtractResults(out)
	require.NoError(t, err)
	var onConsole, posted any
	require.NoError(t, json.Unmarshal(js, &onConsole))
	require.NoError(t, json.Unmarshal(docs[0], &posted))
	assert.Equal(t, onConsole, posted, "the posted document is the one on the console")
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d records, %d POSTs that repeated one (deduplicated by id)", len(rcv.Records()), rcv.Duplicates())
	for id, n := range posts {
		if n > 1 {
			t.Logf("record %s posted %d times", id, n)
		}
	}
}
