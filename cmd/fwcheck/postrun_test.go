package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/post"
)

func TestRunPostsResults(t *testing.T) {
	var rcv post.Receiver
	srv := httptest.NewServer(&rcv)
	defer srv.Close()
	jpath := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := fwcheck(t, "", "run", "--acpidump", "testdata/q35.acpidump.txt", "--json", jpath, "--quiet", "--post", srv.URL+"/fwcheck")
	assert.Contains(t, []int{exitOK, exitFailing}, code, stderr)
	assert.Contains(t, stderr, "posted 1 records to "+srv.URL)
	recs := rcv.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, post.KindResults, recs[0].Kind)
	file, err := os.ReadFile(jpath)
	require.NoError(t, err)
	var a, b any
	require.NoError(t, json.Unmarshal(file, &a))
	require.NoError(t, json.Unmarshal(recs[0].Document, &b))
	assert.Equal(t, a, b, "the server has the document --json wrote")
}

func TestRunPostBadURL(t *testing.T) {
	code, _, stderr := fwcheck(t, "", "run", "--acpidump", "testdata/q35.acpidump.txt", "--post", "lab:8080")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `post URL "lab:8080"`)
}

func TestBootRunPostWithoutDisk(t *testing.T) {
	c, err := image.ParseCmdline("fwcheck.s3=3 fwcheck.post=http://10.0.2.2:8080/fwcheck")
	require.NoError(t, err)
	assert.Equal(t, "http://10.0.2.2:8080/fwcheck", c.Post)
	p := bootRun(c, "")
	assert.Empty(t, p.errs, "a netbooted machine cycles: its records go to the server")
	assert.Equal(t, map[string]string{"s3.cycles": "3", "s3.journal": filepath.Join(memJournalDir, s3Journal)}, p.settings.Raw())
	require.Len(t, p.notes, 1)
	assert.Contains(t, p.notes[0], "journal is kept in memory and each record posted to http://10.0.2.2:8080/fwcheck")
	// With a disk, the journal stays there.
	p = bootRun(c, "/mnt/r")
	assert.Equal(t, "/mnt/r/fwcheck-s3.jsonl", p.settings.Raw()["s3.journal"])
	// A reboot run still needs a disk to carry it across resets.
	c, _ = image.ParseCmdline("fwcheck.reboot=2 fwcheck.post=http://h/")
	assert.False(t, bootRun(c, "").reboot)
}

func TestPostSpool(t *testing.T) {
	assert.Equal(t, "", postSpool(nil))
	assert.Equal(t, "", postSpool(map[string]string{"s3.journal": "none"}))
	assert.Equal(t, "/var/lib/j/fwcheck-post", postSpool(map[string]string{"s3.journal": "/var/lib/j/s3.jsonl"}))
}
