# The labgrid example (issue 30): included by the top-level Makefile.
#
#   make deps-labgrid  install labgrid and pytest for Debian's python3
#                      (python3-labgrid, python3-pytest) when missing
#   make labgrid-test  build the live image and run examples/labgrid's
#                      pytest suite: labgrid's QEMUDriver boots the image,
#                      a hang is power-cycled and the S3 run goes on from
#                      its journal (two TCG boots)

# Debian's interpreter, where apt installs labgrid (a pyenv or venv python3
# earlier on PATH would not see it).
LABGRID_PYTHON ?= /usr/bin/python3

.PHONY: deps-labgrid labgrid-test

deps-labgrid:
	@if $(LABGRID_PYTHON) -c 'import labgrid, pytest' 2>/dev/null; then echo "deps-labgrid: labgrid and pytest are installed"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
	  echo "deps-labgrid: install labgrid and pytest for $(LABGRID_PYTHON) (pip install labgrid pytest)" >&2; exit 1; fi; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	echo "deps-labgrid: installing python3-labgrid python3-pytest"; \
	$$sudo apt-get update && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends python3-labgrid python3-pytest

labgrid-test: deps-image deps-labgrid image
	@$(find_kernel); cd examples/labgrid && \
	FWCHECK_KERNEL="$$k" FWCHECK_IMAGE="$(abspath $(IMAGE))" FWCHECK_QEMU_ACCEL="$(QEMU_ACCEL)" \
	  $(LABGRID_PYTHON) -m pytest -v -p no:cacheprovider .
