"""pytest fixtures: a labgrid environment with one QEMU target booting
fwcheck's live image (pc machine, SeaBIOS) with a FAT results disk.

FWCHECK_KERNEL and FWCHECK_IMAGE name the kernel and the initramfs
(`make labgrid-test` builds out/fwcheck.cpio.lz4 and passes both);
FWCHECK_QEMU_ACCEL picks the accelerator (tcg by default).
"""

import os
import shutil

import pytest
from labgrid import Environment

import fwcheck_lab

ENV_TEMPLATE = """\
targets:
  main:
    drivers:
      QEMUDriver:
        qemu_bin: qemu
        machine: pc
        cpu: {cpu}
        memory: 512M
        kernel: kernel
        boot_args: "{boot_args}"
        extra_args: "{extra_args}"
images:
  kernel: {kernel}
tools:
  qemu: {qemu}
"""


def _need(path, what):
    if not path or not os.path.exists(path):
        pytest.skip("%s not found (%s): run `make labgrid-test`" % (what, path))
    return path


@pytest.fixture
def fwcheck_target(tmp_path, request):
    """Returns a factory: boot_args -> (target, QEMUDriver, results disk).
    Each call writes its labgrid environment file and activates the driver;
    the guest is powered off at the end of the test."""
    kernel = _need(os.environ.get("FWCHECK_KERNEL"), "kernel")
    initramfs = _need(os.environ.get("FWCHECK_IMAGE"), "initramfs")
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        pytest.skip("qemu-system-x86_64 not installed (make deps-image)")
    accel = os.environ.get("FWCHECK_QEMU_ACCEL", "tcg") or "tcg"
    disk = tmp_path / "results.img"
    fwcheck_lab.make_results_disk(disk)
    drivers = []

    def make(boot_args):
        # The kernel command line as the Go harness boots it
        # (image/qemu KernelCmdline), then the run's options.
        cmdline = "console=ttyS0,115200 panic=-1 iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init"
        if accel == "tcg":
            cmdline += " no_timer_check"
        extra = " ".join([
            "-accel", accel,
            "-initrd", initramfs,
            "-drive", "if=ide,format=raw,file=%s" % disk,
            # Offer S3 whatever the QEMU version's default.
            "-global", "PIIX4_PM.disable_s3=0",
            "-display", "none",
        ])
        env_file = tmp_path / "env.yaml"
        # The CPU as the Go harness emulates it (image/qemu TCGCPU): under
        # TCG without ERMS/FSRM, whose REP MOVSB/STOSB TCG runs an
        # iteration at a time; under KVM everything QEMU offers.
        cpu = "max,-erms,-fsrm" if accel == "tcg" else "max"
        env_file.write_text(ENV_TEMPLATE.format(
            boot_args=cmdline + " " + boot_args, extra_args=extra,
            kernel=kernel, qemu=qemu, cpu=cpu))
        env = Environment(str(env_file))
        target = env.get_target("main")
        qemu_driver = target.get_driver("QEMUDriver")
        drivers.append(qemu_driver)
        return target, qemu_driver, disk

    yield make
    for d in drivers:
        try:
            d.off()
        except Exception:  # already off: the test power-cycled it
            pass
