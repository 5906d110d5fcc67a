# fwcheck — build, test and run. `make help` lists the targets.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := fwcheck
FUZZTIME ?= 20s
export CGO_ENABLED := 0
export PATH := $(PATH):/usr/local/go/bin

.PHONY: help build test test-short run lint bench fuzz clean acpiexec-compare lava-deps lava-test

help:
	@echo "make build      build the static fwcheck binary"
	@echo "make run        run fwcheck's safe checks on this machine"
	@echo "make test       install test dependencies (QEMU, OVMF, kernel) and run every test"
	@echo "make test-short run the tests that need no QEMU"
	@echo "make lint       gofmt and go vet"
	@echo "make bench      run the benchmarks"
	@echo "make fuzz       run every fuzz target for FUZZTIME ($(FUZZTIME)) each"
	@echo "make acpiexec-compare  the AML evaluator against acpiexec on every corpus dump (about 5 min)"
	@echo "make image      build the live image (initramfs)"
	@echo "make demo       build the live image and boot it under QEMU/OVMF"
	@echo "make usb        write out/fwcheck.img, the bootable USB stick image (dd it to a stick)"
	@echo "make usb-demo   boot a copy of the stick image under QEMU as a USB stick; it powers off after the report"
	@echo "make deps-image install what the image and the tests need (QEMU, OVMF, SeaBIOS, a kernel, swtpm, mtools, ...)"
	@echo "make deps-arm64 install qemu-system-aarch64, AAVMF, GRUB arm64 and fetch Debian's arm64 kernel into out/arm64"
	@echo "make demo ARCH=arm64  build the arm64 image and boot it on QEMU virt with AAVMF (ARM64_FIRMWARE=aavmf-dt: devicetree)"
	@echo "make labgrid-test  the labgrid pytest example: the image under labgrid's QEMUDriver, a hang power-cycled, S3 resumed from the journal"
	@echo "make s3-soak    $(SOAK_CYCLES) S3 suspend/resume cycles in QEMU, journal on out/soak-results.img (about an hour)"
	@echo "make lava-test  run the job 'fwcheck-image lava' writes on a LAVA server and dispatcher started here (about 15 min with the image build; installs lava-server)"
	@echo "make clean      remove the binaries and out/"

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/fwcheck

run: build
	./$(BIN) run

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needs to run on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The image package boots QEMU guests under TCG (tens of minutes on a loaded
# two-core machine): it gets its own run and a timeout such a machine does
# not reach; every other package keeps 20 minutes.
test: deps-image deps-arm64 lint
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/image$$')
	$(GO) test -count=1 -timeout 90m ./image

test-short: lint
	$(GO) test -count=1 -short ./...

# bench prints every performance figure of the README's table: the Go
# benchmarks, start-up as one process per run (wall and CPU time, with the
# load average: on a shared machine compare CPU times), and, when QEMU and a
# kernel are there, the live image's kernel start to verdicts on q35/OVMF
# under TCG (BENCH_BOOT=0 leaves the boot out; it takes 10 s to minutes).
BENCH_BOOT ?= 1
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@echo "== start-up, one process per run (load average $$(cut -d' ' -f1 /proc/loadavg))"
	$(GO) test -run '^$$' -bench '^BenchmarkStartup$$' -benchtime 50x ./cmd/fwcheck
	@if [ "$(BENCH_BOOT)" = 1 ] && command -v qemu-system-x86_64 >/dev/null && ls /usr/share/OVMF/OVMF_CODE*.fd >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory image >/dev/null && $(find_kernel) && \
	  echo "== live image, q35/OVMF under $(QEMU_ACCEL), no results disk (load average $$(cut -d' ' -f1 /proc/loadavg))" && \
	  ./fwcheck-image boot --accel "$(QEMU_ACCEL)" --initramfs $(IMAGE) --kernel "$$k" --firmware ovmf --append "fwcheck.after=poweroff" 2>&1 | \
	    grep -a -E "fwcheck .*: running|verdicts [0-9.]+ s after kernel start|no FWCHECK after"; \
	else echo "== live image boot left out (BENCH_BOOT=0, or no QEMU/OVMF: make deps-image)"; fi

# The AML evaluator against ACPICA's acpiexec (acpica-tools, from deps-image)
# on every full corpus dump and QEMU's DSDTs, over the device objects the
# methods check evaluates: 9,400 values, about 5 minutes on the loaded
# two-core machine, too long for make test (which compares 4 machines'
# _HID/_UID/_STA/_CRS). Each difference left is explained in the test.
acpiexec-compare: deps-image
	FWCHECK_ACPIEXEC_METHODS=1 FWCHECK_ACPIEXEC_ALL=1 $(GO) test -count=1 -timeout 60m -run '^(TestAgainstAcpiexec|TestMethodsAgainstAcpiexec)$$' -v ./acpi/aml

# Every FuzzXxx in the tree, each for FUZZTIME; runs them all, then names
# the ones that failed (a crasher is saved under testdata/fuzz/ by go test).
fuzz:
	@failed=""; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || failed="$$failed $$pkg.$$f"; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz targets that failed:$$failed"; exit 1; fi; echo "every fuzz target ran clean"

# LAVA for real (image/lava_e2e_test.go): PostgreSQL, lava-server's
# gunicorn and lava-scheduler, and a lava-worker whose lava-dispatcher
# boots the live image under QEMU, all started on this machine (as root);
# the job `fwcheck-image lava` writes runs there, and every check and S3
# cycle must come back as a LAVA test case with its measurement. The test
# took 5.5 min at a load average of 30, the target 14.5 min with the image
# build; CI runs the test inside make test instead (FWCHECK_LAVA=1 after
# make lava-deps), where it shares the image the other tests build.
LAVA_PACKAGES := lava-server lava-dispatcher postgresql
lava-deps:
	@missing=""; for p in $(LAVA_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "lava-deps: everything is installed"; exit 0; fi; \
	echo "lava-deps: installing$$missing"; \
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing

lava-test: deps-image lava-deps image
	FWCHECK_LAVA=1 FWCHECK_IMAGE=$(IMAGE) $(GO) test -count=1 -timeout 60m -run '^(TestLAVAServer|TestLAVAJobSchema)$$' -v ./image

clean:
	rm -rf $(BIN) fwcheck-image out

-include image/image.mk
-include examples/labgrid/labgrid.mk
