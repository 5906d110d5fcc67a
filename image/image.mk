# The live image (issue 5): included by the top-level Makefile.
#
#   make deps-image   install QEMU, OVMF, SeaBIOS, a kernel, dosfstools,
#                     mtools, cpio, swtpm, Debian's signed shim and GRUB
#                     (shim-signed, grub-efi-amd64-signed: the stick's
#                     Secure Boot chain) and sbsigntool (sbverify), and as test oracles only
#                     python3-jsonschema, chromium and acpica-tools (iasl,
#                     acpiexec), with apt-get, only when missing
#                     also, when the distribution has it, linux-source-6.1
#                     (and xz) for klogscan's coverage test
#   make image        build out/fwcheck.cpio.lz4 for KERNEL
#   make usb          write out/fwcheck.img, the bootable USB stick image
#                     (UEFI and BIOS, fwcheck.cfg, FWCHECK results partition;
#                     boots with Secure Boot on through shim when the kernel
#                     is signed, as Debian's is; CHAIN=unsigned forces the
#                     GRUB built here)
#   make usb-demo     boot a copy of the stick (out/fwcheck-demo.img, with
#                     after = DEMO_AFTER) under QEMU as a USB stick: it
#                     powers off after the report (DEMO_FIRMWARE=seabios
#                     for legacy BIOS, DEMO_AFTER=shell to stay)
#   make demo         build the image and boot it under QEMU with OVMF on q35
#                     (kernel booted "quiet": a dozen lines of boot noise
#                     instead of ~400; the results keep the whole log);
#                     the report appears on this terminal, its verdict the
#                     last line before the kernel's power-off messages (the
#                     results JSON goes to out/demo-results.json, OVMF's
#                     screen clears are filtered), and the machine powers off. DEMO_AFTER=shell stays at the image's shell
#                     instead (Ctrl-A X quits QEMU); DEMO_FIRMWARE=seabios
#                     boots pc.
#                     A swtpm TPM 2.0 is attached when swtpm is installed.
#   make s3-soak      300 S3 cycles in QEMU with the journal on a FAT disk
#
# KERNEL defaults to the newest readable /boot/vmlinuz-*; its modules
# (/lib/modules/RELEASE) go into the image. APPEND adds kernel arguments,
# e.g. APPEND="fwcheck.run=checksum fwcheck.after=poweroff".

IMAGE         ?= out/fwcheck.cpio.lz4
USB_IMAGE     ?= out/fwcheck.img
KERNEL        ?=
APPEND        ?=
DEMO_FIRMWARE ?= ovmf
DEMO_AFTER    ?= poweroff
# Debian's kernel package; on Ubuntu use KERNEL_PKG=linux-image-generic.
KERNEL_PKG    ?= linux-image-amd64

# Shell snippet: the kernel to use, or an error naming the fix.
find_kernel = k="$(KERNEL)"; \
  if [ -z "$$k" ]; then for f in $$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V -r); do \
    if [ -r "$$f" ]; then k="$$f"; break; fi; done; fi; \
  if [ -z "$$k" ] || [ ! -r "$$k" ]; then \
    echo "no readable kernel: run 'make deps-image' or pass KERNEL=/path/to/vmlinuz" >&2; exit 2; fi

.PHONY: deps-image image demo usb usb-demo s3-soak

# s3-soak: 300 suspend/resume cycles in QEMU (pc/SeaBIOS, TCG), with the
# journal on a FAT results disk out/soak-results.img; about an hour here.
# Not part of `make test`. SOAK_CYCLES and SOAK_FIRMWARE change it.
SOAK_CYCLES   ?= 300
# QEMU's accelerator for demo, usb-demo and s3-soak. The harness would use
# KVM when a one-sector probe guest boots, but on machines where /dev/kvm
# passes that probe and Linux guests then hang (this project's CI machines),
# only TCG works: it is the default. QEMU_ACCEL=kvm is faster where KVM
# works; QEMU_ACCEL= (empty) lets the probe decide.
QEMU_ACCEL    ?= $(or $(FWCHECK_QEMU_ACCEL),tcg)
SOAK_FIRMWARE ?= seabios
s3-soak: deps-image image
	@$(find_kernel); rm -f out/soak-results.img; \
	mkfs=$$(command -v mkfs.vfat || echo /sbin/mkfs.vfat); \
	$$mkfs -C -n FWCHECK out/soak-results.img 16384 >/dev/null; \
	./fwcheck-image boot --accel "$(QEMU_ACCEL)" --initramfs $(IMAGE) --kernel "$$k" --firmware $(SOAK_FIRMWARE) --disk out/soak-results.img \
	  --append "fwcheck.after=poweroff fwcheck.run=s3 fwcheck.s3=$(SOAK_CYCLES) fwcheck.s3.sleep=3s fwcheck.s3.awake=1s"; \
	echo "journal: mtype -i out/soak-results.img ::fwcheck-s3.jsonl"; \
	mtype -i out/soak-results.img ::fwcheck-s3.jsonl | grep -c '"event":"outcome"' | sed 's/^/cycle outcomes recorded: /'

deps-image:
	@missing=""; \
	command -v qemu-system-x86_64 >/dev/null || missing="$$missing qemu-system-x86"; \
	ls /usr/share/OVMF/OVMF_CODE*.fd >/dev/null 2>&1 || missing="$$missing ovmf"; \
	[ -e /usr/share/seabios/bios-256k.bin ] || missing="$$missing seabios"; \
	ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$$missing $(KERNEL_PKG)"; \
	command -v mkfs.vfat >/dev/null || [ -x /sbin/mkfs.vfat ] || [ -x /usr/sbin/mkfs.vfat ] || missing="$$missing dosfstools"; \
	command -v mcopy >/dev/null || missing="$$missing mtools"; \
	command -v cpio >/dev/null || missing="$$missing cpio"; \
	command -v swtpm >/dev/null || missing="$$missing swtpm"; \
	[ -e /usr/lib/ipxe/qemu/efi-virtio.rom ] || missing="$$missing ipxe-qemu"; \
	command -v grub-mkimage >/dev/null || missing="$$missing grub-common"; \
	[ -e /usr/lib/grub/x86_64-efi/moddep.lst ] || missing="$$missing grub-efi-amd64-bin"; \
	[ -e /usr/lib/grub/i386-pc/moddep.lst ] || missing="$$missing grub-pc-bin"; \
	[ -e /usr/lib/shim/shimx64.efi.signed ] || missing="$$missing shim-signed"; \
	[ -e /usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed ] || missing="$$missing grub-efi-amd64-signed"; \
	command -v sbverify >/dev/null || missing="$$missing sbsigntool"; \
	command -v sfdisk >/dev/null || [ -x /sbin/sfdisk ] || [ -x /usr/sbin/sfdisk ] || missing="$$missing fdisk"; \
	python3 -c 'import jsonschema' 2>/dev/null || missing="$$missing python3-jsonschema"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v iasl >/dev/null && command -v acpiexec >/dev/null || missing="$$missing acpica-tools"; \
	command -v xz >/dev/null || missing="$$missing xz-utils"; \
	if [ -z "$$missing" ]; then echo "deps-image: everything is installed"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
	  echo "deps-image: missing:$$missing; install them with your package manager" >&2; exit 1; fi; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	echo "deps-image: installing$$missing"; \
	$$sudo apt-get update && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing
	@[ -e /usr/src/linux-source-6.1.tar.xz ] || ! command -v apt-get >/dev/null || { \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  echo "deps-image: installing linux-source-6.1 for klogscan's coverage test"; \
	  { $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends linux-source-6.1; } \
	    || echo "deps-image: linux-source-6.1 is not available here; the coverage test will skip"; }

# The image builder is its own command, so the fwcheck binary stays small.
fwcheck-image:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o fwcheck-image ./cmd/fwcheck-image

.PHONY: fwcheck-image

# The image is rebuilt only when an input changed: a Go source, template or
# data file of the module, go.mod/go.sum, the kernel (path and time), or
# the version. $(IMAGE).inputs records the last build's kernel and version.
IMAGE_SOURCES = $(shell find . -path ./out -prune -o \( -name '*.go' -o -name '*.json' -o -name '*.tmpl' \) -newer $(IMAGE) -print 2>/dev/null | grep -v _test.go | head -1)

image: fwcheck-image
	@$(find_kernel); mkdir -p $(dir $(IMAGE)); \
	want="$$k $$(stat -c %Y "$$k") $(VERSION)"; \
	if [ -f "$(IMAGE)" ] && [ "$$(cat "$(IMAGE).inputs" 2>/dev/null)" = "$$want" ] && \
	   [ -z "$(IMAGE_SOURCES)" ] && [ ! go.mod -nt "$(IMAGE)" ] && [ ! go.sum -nt "$(IMAGE)" ]; then \
	  echo "$(IMAGE) is up to date (kernel $$k, version $(VERSION))"; exit 0; fi; \
	echo "./fwcheck-image build -o $(IMAGE) --kernel $$k"; \
	./fwcheck-image build -o $(IMAGE) --kernel "$$k" --version $(VERSION) && echo "$$want" > "$(IMAGE).inputs"

ifeq ($(ARCH),arm64)
demo: demo-arm64
else
demo: deps-image image
	@$(find_kernel); \
	echo "Booting $(IMAGE) with $$k under QEMU ($(DEMO_FIRMWARE)); the report follows, then fwcheck.after=$(DEMO_AFTER) (at a shell, Ctrl-A X quits QEMU); results JSON: out/demo-results.json"; \
	tpm=""; command -v swtpm >/dev/null && tpm="--tpm"; \
	./fwcheck-image boot --accel "$(QEMU_ACCEL)" --initramfs $(IMAGE) --kernel "$$k" --firmware $(DEMO_FIRMWARE) --append "quiet fwcheck.after=$(DEMO_AFTER) $(APPEND)" --results out/demo-results.json $$tpm
endif

# The USB stick image: the initramfs above, the kernel, shim and GRUB for
# UEFI, GRUB for BIOS, fwcheck.cfg and the FWCHECK results partition, in
# 64 MiB.
CHAIN ?=
usb: deps-image image
	@$(find_kernel); \
	echo "./fwcheck-image usb -o $(USB_IMAGE) --kernel $$k --initramfs $(IMAGE) $(if $(CHAIN),--chain $(CHAIN))"; \
	./fwcheck-image usb -o $(USB_IMAGE) --kernel "$$k" --initramfs $(IMAGE) $(if $(CHAIN),--chain $(CHAIN))

# usb-demo boots a copy of the stick whose fwcheck.cfg says after =
# $(DEMO_AFTER), so that it powers off after the report like make demo
# (out/fwcheck.img itself keeps after = shell, for a person at the machine).
USB_DEMO_IMAGE ?= out/fwcheck-demo.img
usb-demo: deps-image image
	@$(find_kernel); mkdir -p out; printf 'after = %s\n' "$(DEMO_AFTER)" > out/fwcheck-demo.cfg; \
	./fwcheck-image usb -o $(USB_DEMO_IMAGE) --kernel "$$k" --initramfs $(IMAGE) --config out/fwcheck-demo.cfg >/dev/null && \
	echo "Booting $(USB_DEMO_IMAGE) as a USB stick under QEMU ($(DEMO_FIRMWARE)); the report follows, then fwcheck.after=$(DEMO_AFTER) (at a shell, Ctrl-A X quits QEMU); results JSON: out/demo-results.json" && \
	./fwcheck-image boot --accel "$(QEMU_ACCEL)" --usb $(USB_DEMO_IMAGE) --firmware $(DEMO_FIRMWARE) --results out/demo-results.json

# The arm64 image (issue 31), built and booted on any Debian host, amd64
# included:
#
#   make deps-arm64   install qemu-system-aarch64 (qemu-system-arm), AAVMF
#                     (qemu-efi-aarch64) and GRUB's arm64 EFI modules
#                     (grub-efi-arm64-bin, after dpkg --add-architecture
#                     arm64), and fetch Debian's arm64 kernel with its
#                     modules into out/arm64/root: apt-get download of the
#                     linux-image-*-arm64 that linux-image-arm64 depends on,
#                     dpkg-deb -x, depmod -b (nothing is installed as a
#                     package on the host)
#   make image-arm64  build out/fwcheck-arm64.cpio.gz for that kernel
#   make usb-arm64    write out/fwcheck-arm64.img, a stick with
#                     /EFI/BOOT/BOOTAA64.EFI
#   make demo ARCH=arm64
#                     boot the arm64 image on QEMU's virt board with AAVMF
#                     under TCG (ARM64_FIRMWARE=aavmf-dt: without ACPI, the
#                     devicetree only); the report on this terminal, then
#                     the results document, then power-off
ARCH           ?= amd64
ARM64_DIR      ?= out/arm64
ARM64_IMAGE    ?= out/fwcheck-arm64.cpio.gz
ARM64_USB      ?= out/fwcheck-arm64.img
ARM64_FIRMWARE ?= aavmf
ARM64_META     ?= linux-image-arm64

# Shell snippet: the arm64 kernel and modules directory fetched by deps-arm64.
find_arm64 = k=$$(ls -1 $(ARM64_DIR)/root/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1); \
  m=$$(ls -1d $(ARM64_DIR)/root/lib/modules/* 2>/dev/null | sort -V | tail -1); \
  if [ -z "$$k" ] || [ -z "$$m" ]; then echo "no arm64 kernel in $(ARM64_DIR)/root: run 'make deps-arm64'" >&2; exit 2; fi

.PHONY: deps-arm64 image-arm64 demo-arm64 usb-arm64

deps-arm64:
	@sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; updated=""; \
	if ! command -v apt-get >/dev/null; then \
	  command -v qemu-system-aarch64 >/dev/null && ls $(ARM64_DIR)/root/boot/vmlinuz-* >/dev/null 2>&1 && exit 0; \
	  echo "deps-arm64: needs apt-get (Debian or Ubuntu): install qemu-system-aarch64 and AAVMF, and put an arm64 kernel in $(ARM64_DIR)/root" >&2; exit 1; fi; \
	if [ "$$(dpkg --print-architecture)" != arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then \
	  echo "deps-arm64: dpkg --add-architecture arm64"; $$sudo dpkg --add-architecture arm64; updated=""; fi; \
	missing=""; \
	command -v qemu-system-aarch64 >/dev/null || missing="$$missing qemu-system-arm"; \
	[ -e /usr/share/AAVMF/AAVMF_CODE.fd ] || missing="$$missing qemu-efi-aarch64"; \
	[ -e /usr/lib/grub/arm64-efi/moddep.lst ] || missing="$$missing grub-efi-arm64-bin:arm64"; \
	command -v depmod >/dev/null || [ -x /sbin/depmod ] || [ -x /usr/sbin/depmod ] || missing="$$missing kmod"; \
	if [ -n "$$missing" ]; then echo "deps-arm64: installing$$missing"; \
	  $$sudo apt-get update -qq && updated=1 && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing || exit 1; fi; \
	if ls $(ARM64_DIR)/root/boot/vmlinuz-* >/dev/null 2>&1; then echo "deps-arm64: everything is installed ($$(ls $(ARM64_DIR)/root/boot/vmlinuz-*))"; exit 0; fi; \
	[ -n "$$updated" ] || $$sudo apt-get update -qq || exit 1; \
	pkg=$$(apt-cache depends $(ARM64_META):arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*-arm64\).*/\1/p' | head -1); \
	if [ -z "$$pkg" ]; then echo "deps-arm64: the mirror has no $(ARM64_META) for arm64" >&2; exit 1; fi; \
	echo "deps-arm64: fetching $$pkg (arm64) into $(ARM64_DIR)"; \
	rm -rf $(ARM64_DIR) && mkdir -p $(ARM64_DIR) && cd $(ARM64_DIR) && \
	apt-get download "$$pkg:arm64" 2>&1 | grep -v "unsandboxed" ; \
	deb=$$(ls -1 linux-image-*_arm64.deb 2>/dev/null | head -1); [ -n "$$deb" ] || { echo "deps-arm64: apt-get download $$pkg:arm64 failed" >&2; exit 1; }; \
	dpkg-deb -x "$$deb" root && rm -f "$$deb" && \
	rel=$$(ls -1 root/lib/modules | head -1) && \
	depmod=$$(command -v depmod || echo /sbin/depmod) && $$depmod -b root "$$rel" && \
	echo "deps-arm64: $(ARM64_DIR)/root/boot/vmlinuz-$$rel and its modules"

# Rebuilt when missing or older than a Go source of the module.
image-arm64: deps-arm64 fwcheck-image
	@$(find_arm64); \
	if [ -f $(ARM64_IMAGE) ] && [ -z "$$(find . -path ./out -prune -o -name '*.go' -newer $(ARM64_IMAGE) -print | grep -v _test.go | head -1)" ] && [ ! "$$k" -nt $(ARM64_IMAGE) ]; then \
	  echo "$(ARM64_IMAGE) is up to date (kernel $$k)"; exit 0; fi; \
	echo "./fwcheck-image build --arch arm64 -o $(ARM64_IMAGE) --kernel $$k --modules $$m"; \
	./fwcheck-image build --arch arm64 -o $(ARM64_IMAGE) --kernel "$$k" --modules "$$m" --version $(VERSION)

demo-arm64: image-arm64
	@$(find_arm64); rm -f out/demo-arm64-results.json; \
	echo "Booting $(ARM64_IMAGE) with $$k on QEMU virt with AAVMF ($(ARM64_FIRMWARE), $(QEMU_ACCEL)); the report follows, then the results document, then fwcheck.after=$(DEMO_AFTER)"; \
	./fwcheck-image boot --accel "$(QEMU_ACCEL)" --firmware $(ARM64_FIRMWARE) --initramfs $(ARM64_IMAGE) --kernel "$$k" \
	  --append "quiet fwcheck.after=$(DEMO_AFTER) $(APPEND)" --results out/demo-arm64-results.json && \
	echo "== the results document (out/demo-arm64-results.json)" && cat out/demo-arm64-results.json

usb-arm64: image-arm64
	@$(find_arm64); \
	echo "./fwcheck-image usb --arch arm64 -o $(ARM64_USB) --kernel $$k --initramfs $(ARM64_IMAGE)"; \
	./fwcheck-image usb --arch arm64 -o $(ARM64_USB) --kernel "$$k" --initramfs $(ARM64_IMAGE)
