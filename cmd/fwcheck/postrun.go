package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/post"
)

// postWait bounds how long a run waits at its end for the server to take
// what it has not yet acknowledged (fwcheck.post=, --post): a server down
// for longer leaves the records on the results disk, or, without one, says
// on the console how many were lost.
const postWait = 2 * time.Minute

// postedJournals are the journals a run posts, by their check, as the
// settings name them ("s3.journal").
var postedJournals = [...]string{S3CheckID, RebootCheckID}

// startPost starts sending the run's journal records to url as they are
// written (package post). spool, when not empty, is local storage that
// keeps what the server has not acknowledged; settings are the run's
// (tests.Settings.Raw) and name the journals.
func startPost(url, spool string, settings map[string]string, logf func(string, ...any)) (*post.Sender, error) {
	s, err := post.Start(post.Options{URL: url, Spool: spool, Logf: logf})
	if err != nil {
		return nil, err
	}
	for _, id := range postedJournals {
		if p := settings[id+".journal"]; p != "" && p != "none" {
			s.Watch(id, p)
		}
	}
	return s, nil
}

// postSpool is where a command-line run keeps what its server has not
// acknowledged: next to its first journal, on the storage the journal is
// on; "" (memory only) for a run with no journal.
func postSpool(settings map[string]string) string {
	for _, id := range postedJournals {
		if p := settings[id+".journal"]; p != "" && p != "none" {
			return filepath.Join(filepath.Dir(p), "fwcheck-post")
		}
	}
	return ""
}

// finishPost queues the results document, waits up to postWait for the
// server and returns a line saying what went.
func finishPost(s *post.Sender, url string, doc []byte, spool string) string {
	var queued error
	if doc != nil {
		queued = s.Results(doc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), postWait)
	defer cancel()
	st := s.Close(ctx)
	msg := fmt.Sprintf("posted %d records to %s", st.Sent, url)
	if st.Retries > 0 {
		msg += fmt.Sprintf(" (%d attempts retried)", st.Retries)
	}
	if st.Rejected > 0 {
		msg += fmt.Sprintf("; the server refused %d", st.Rejected)
	}
	if st.Skipped > 0 {
		msg += fmt.Sprintf("; %d damaged journal lines not sent", st.Skipped)
	}
	if st.Pending > 0 {
		where := "lost with this boot: there is no local storage to keep them"
		if spool != "" {
			where = "kept in " + spool + " for the next run to send"
		}
		msg += fmt.Sprintf("; %d not acknowledged after %v, %s", st.Pending, postWait, where)
	}
	if queued != nil {
		msg += "; " + queued.Error()
	}
	return msg
}

// memJournalDir holds the s3 journal of a live image with no results disk
// that posts its records (fwcheck.post=): in the initramfs, in memory.
const memJournalDir = "/tmp/fwcheck-journals"

// bootPost starts posting the live image's run to fwcheck.post=, when
// given; problems go into errs.
func bootPost(live *image.Live, cfg image.Config, resultsDir string, run bootPlan, errs *[]string) *post.Sender {
	if cfg.Post == "" {
		return nil
	}
	raw := run.settings.Raw()
	if p := raw[S3CheckID+".journal"]; filepath.Dir(p) == memJournalDir {
		if err := os.MkdirAll(memJournalDir, 0o700); err != nil {
			*errs = append(*errs, err.Error())
		}
	}
	s, err := startPost(cfg.Post, resultsDir, raw, func(f string, a ...any) { live.Logf("fwcheck: "+f, a...) })
	if err != nil {
		*errs = append(*errs, "fwcheck.post: "+err.Error())
		return nil
	}
	where := "in memory only (no results disk)"
	if resultsDir != "" {
		where = "on the results disk until acknowledged"
	}
	live.Logf("fwcheck: posting the journals and the results to %s; records kept %s", cfg.Post, where)
	return s
}
