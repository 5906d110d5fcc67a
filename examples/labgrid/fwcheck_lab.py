"""Helpers for driving fwcheck's live image from a labgrid test.

They know fwcheck's console contract (image/markers.go): the results
document is the JSON between a BEGIN and an END marker line, each printed
once per boot; the s3 check prints "s3: cycle N/M: suspending" before each
suspend. Nothing here depends on QEMU: the same helpers work on a real
board with a SerialDriver and a power driver.
"""

import json
import subprocess

BEGIN_MARKER = "-----BEGIN FWCHECK RESULTS-----"
END_MARKER = "-----END FWCHECK RESULTS-----"

# Bounds for hostile console output: a results document is well under this.
MAX_DOCUMENT = 16 << 20


class NoResults(Exception):
    """The console holds no complete results block."""


def extract_results(console):
    """Return the results document (a dict) of the last complete block
    framed by the markers in a console transcript (str or bytes). Carriage
    returns the tty adds are removed; kernel messages outside the block are
    ignored."""
    if isinstance(console, bytes):
        console = console.decode("utf-8", "replace")
    lines = console.replace("\r", "").split("\n")
    start, block = None, None
    for i, line in enumerate(lines):
        if line == BEGIN_MARKER:
            start = i + 1
        elif line == END_MARKER and start is not None:
            block, start = lines[start:i], None
    if block is None:
        raise NoResults("no complete %s block" % BEGIN_MARKER)
    text = "\n".join(block)
    if len(text) > MAX_DOCUMENT:
        raise NoResults("results block larger than %d bytes" % MAX_DOCUMENT)
    return json.loads(text)


def wait_for_results(console, timeout):
    """Wait on a labgrid console (anything with ConsoleExpectMixin's
    expect) for the results block and return the document. pexpect raises
    TIMEOUT when the machine stays silent."""
    console.expect(BEGIN_MARKER, timeout=timeout)
    _, before, _, _ = console.expect(END_MARKER, timeout=timeout)
    text = before.decode("utf-8", "replace") if isinstance(before, bytes) else before
    return extract_results(BEGIN_MARKER + "\n" + text.strip("\r\n") + "\n" + END_MARKER + "\n")


def result(doc, check_id):
    """The result of one check in a results document, or None."""
    for r in doc.get("results", []):
        if r.get("id") == check_id:
            return r
    return None


def messages(res):
    """The messages of a result's findings, one string."""
    return "\n".join(f.get("message", "") for f in res.get("findings", []))


def make_results_disk(path, size_kib=16384):
    """A FAT file system labelled FWCHECK, where the image keeps its
    journals: the lab's stand-in for the results stick."""
    subprocess.run(["mkfs.vfat", "-C", "-n", "FWCHECK", str(path), str(size_kib)],
                   check=True, stdout=subprocess.DEVNULL)


def journal_events(disk, name="fwcheck-s3.jsonl"):
    """The journal on the results disk as "event cycle [status]" strings,
    read with mtools as a lab would from the stick."""
    out = subprocess.run(["mtype", "-i", str(disk), "::" + name], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    events = []
    for line in out.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        s = rec["event"]
        if rec.get("cycle"):
            s += " %d" % rec["cycle"]
        if rec.get("outcome"):
            s += " " + rec["outcome"]["status"]
        events.append(s)
    return events
