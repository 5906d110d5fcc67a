"""fwcheck under labgrid: the pytest example a lab starts from.

test_s3_run_survives_a_hang boots the live image through labgrid's
QEMUDriver with a results disk and asks for 3 S3 cycles. While cycle 2
sleeps the test freezes the machine (QMP "stop", see freeze: to the test
it is a machine that never woke up); the test notices the silence, power-cycles
the target, and the second boot goes on from the journal on the disk:
cycle 2 is recorded as hung, cycle 3 runs, the results come out between
the markers and are parsed. Two boots.
"""

import json
import time

import pexpect
import pytest

import fwcheck_lab

# A boot under TCG on a loaded two-core machine takes minutes.
BOOT_TIMEOUT = 900
# Silence for this long after a suspend means the machine hung: a resumed
# guest prints its next cycle within seconds (the sleep is 10 s).
HANG_SILENCE = 40

S3_ARGS = "fwcheck.run=s3 fwcheck.s3=3 fwcheck.s3.sleep=10s fwcheck.s3.awake=1s fwcheck.after=shell"


def test_extract_results_ignores_kernel_noise():
    doc = {"results": [{"id": "s3", "status": "passed"}]}
    console = ("[    1.0] kernel says hello\r\n"
               + fwcheck_lab.BEGIN_MARKER + "\r\n{\"results\": []}\r\n"
               + fwcheck_lab.END_MARKER + "\r\n[    2.0] PM: suspend entry\r\n"
               + fwcheck_lab.BEGIN_MARKER + "\r\n" + json.dumps(doc, indent=1).replace("\n", "\r\n") + "\r\n"
               + fwcheck_lab.END_MARKER + "\r\n"
               + fwcheck_lab.BEGIN_MARKER + "\r\n{\"cut\": ")
    assert fwcheck_lab.extract_results(console) == doc, "the last complete block"
    with pytest.raises(fwcheck_lab.NoResults):
        fwcheck_lab.extract_results("[    1.0] nothing\n" + fwcheck_lab.BEGIN_MARKER + "\n{}\n")


def freeze(qemu):
    """Freeze the guest for good: to the test it is a machine that never
    woke up. QMP "stop" pauses a running guest; QEMU before 8.2 ignores it
    while the guest sleeps in S3 (its status stays "suspended" and the RTC
    alarm still wakes it), so a guest that is already asleep is woken and
    stopped at once: it freezes at the start of the firmware's resume path,
    before the kernel runs again."""
    qemu.monitor_command("stop")
    if qemu.monitor_command("query-status")["status"] == "suspended":
        qemu.monitor_command("system_wakeup")
        qemu.monitor_command("stop")
    status = qemu.monitor_command("query-status")["status"]
    assert status == "paused", "QMP stop left the guest %s" % status


def test_s3_run_survives_a_hang(fwcheck_target):
    target, qemu, disk = fwcheck_target(S3_ARGS)
    target.activate(qemu)
    qemu.on()
    qemu.expect("s3: cycle 2/3: suspending", timeout=BOOT_TIMEOUT)
    # The cycle's record reaches the disk (fsync'd) just before the
    # machine sleeps: freeze it once the record is there.
    deadline = time.monotonic() + BOOT_TIMEOUT
    while "start 2" not in fwcheck_lab.journal_events(disk):
        assert time.monotonic() < deadline, "cycle 2 never reached the journal"
        time.sleep(0.5)
    freeze(qemu)  # the machine hangs in its sleep

    printed = None
    try:
        _, before, match, _ = qemu.expect(["s3: cycle 3/3", fwcheck_lab.BEGIN_MARKER], timeout=HANG_SILENCE)
        printed = (before or b"")[-2000:] + (match.group(0) if match else b"")
    except pexpect.TIMEOUT:
        pass
    assert printed is None, "a frozen machine printed: %r" % printed
    assert fwcheck_lab.journal_events(disk) == ["run", "start 1", "outcome 1 passed", "start 2"], \
        "the journal as the hang left it"

    # Power-cycle: the same disk boots again and the run goes on.
    qemu.cycle()
    doc = fwcheck_lab.wait_for_results(qemu, BOOT_TIMEOUT)
    s3 = fwcheck_lab.result(doc, "s3")
    assert s3 is not None, doc.get("results")
    assert s3["status"] == "failed"
    text = fwcheck_lab.messages(s3)
    assert "3 cycles: 2 passed, 0 failed, 1 hung" in text, text
    hung_findings = [f["message"] for f in s3.get("findings", []) if f.get("label") == "S3Hung"]
    assert len(hung_findings) == 1 and hung_findings[0].startswith("cycle 2: "), hung_findings
    assert fwcheck_lab.journal_events(disk) == [
        "run", "start 1", "outcome 1 passed", "start 2", "hung 2 hung",
        "start 3", "outcome 3 passed", "done"], "every cycle has its record"
