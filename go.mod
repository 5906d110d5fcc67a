module github.com/fwcheck/fwcheck

go 1.26.8

require (
	github.com/google/go-eventlog v0.0.2
	github.com/google/go-tpm v0.9.8
	github.com/klauspost/compress v1.18.0
	github.com/pierrec/lz4/v4 v4.1.22
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/u-root/gobusybox/src v0.3.0
	github.com/u-root/mkuimage v0.2.0
	github.com/u-root/uio v0.0.0-20240224005618-d2acac8f3701
	github.com/ulikunitz/xz v0.5.15
	golang.org/x/mod v0.34.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/insomniacslk/dhcp v0.0.0-20231206064809-8c70d406f6d2 // indirect
	github.com/josharian/native v1.1.0 // indirect
	github.com/mdlayher/packet v1.1.2 // indirect
	github.com/mdlayher/socket v0.5.1 // indirect
	golang.org/x/net v0.52.0 // indirect
)

require (
	github.com/atotto/clipboard v0.1.4 // indirect
	github.com/aymanbagabas/go-osc52/v2 v2.0.1 // indirect
	github.com/charmbracelet/bubbles v0.16.1 // indirect
	github.com/charmbracelet/bubbletea v0.24.1 // indirect
	github.com/charmbracelet/lipgloss v0.7.1 // indirect
	github.com/containerd/console v1.0.4-0.20230706203907-8f6c4e4faef5 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hugelgupf/go-shlex v0.0.0-20200702092117-c80c9d0918fa // indirect
	github.com/klauspost/pgzip v1.2.6 // indirect
	github.com/knz/bubbline v0.0.0-20230717192058-486954f9953f // indirect
	github.com/lucasb-eyer/go-colorful v1.2.0 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-localereader v0.0.1 // indirect
	github.com/mattn/go-runewidth v0.0.14 // indirect
	github.com/muesli/ansi v0.0.0-20230316100256-276c6243b2f6 // indirect
	github.com/muesli/cancelreader v0.2.2 // indirect
	github.com/muesli/reflow v0.3.0 // indirect
	github.com/muesli/termenv v0.15.1 // indirect
	github.com/peterh/liner v1.2.2 // indirect
	github.com/rck/unit v0.0.3 // indirect
	github.com/rivo/uniseg v0.4.4 // indirect
	github.com/sahilm/fuzzy v0.1.0 // indirect
	github.com/u-root/cpuid v0.0.1-0.20250320140348-cc5fe81d966c // indirect
	github.com/u-root/u-root v0.16.0
	github.com/vishvananda/netlink v1.3.0 // indirect
	github.com/vishvananda/netns v0.0.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20260312153236-7ab1446f8b90 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/term v0.41.0 // indirect
	golang.org/x/text v0.35.0 // indirect
	golang.org/x/tools v0.43.0 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
	mvdan.cc/sh/v3 v3.11.0 // indirect
)

tool (
	github.com/u-root/u-root/cmds/core/cat
	github.com/u-root/u-root/cmds/core/cp
	github.com/u-root/u-root/cmds/core/date
	github.com/u-root/u-root/cmds/core/dd
	github.com/u-root/u-root/cmds/core/df
	github.com/u-root/u-root/cmds/core/dmesg
	github.com/u-root/u-root/cmds/core/echo
	github.com/u-root/u-root/cmds/core/free
	github.com/u-root/u-root/cmds/core/gosh
	github.com/u-root/u-root/cmds/core/grep
	github.com/u-root/u-root/cmds/core/hexdump
	github.com/u-root/u-root/cmds/core/init
	github.com/u-root/u-root/cmds/core/insmod
	github.com/u-root/u-root/cmds/core/ls
	github.com/u-root/u-root/cmds/core/lsmod
	github.com/u-root/u-root/cmds/core/mkdir
	github.com/u-root/u-root/cmds/core/more
	github.com/u-root/u-root/cmds/core/mount
	github.com/u-root/u-root/cmds/core/msr
	github.com/u-root/u-root/cmds/core/pci
	github.com/u-root/u-root/cmds/core/poweroff
	github.com/u-root/u-root/cmds/core/ps
	github.com/u-root/u-root/cmds/core/rm
	github.com/u-root/u-root/cmds/core/rsdp
	github.com/u-root/u-root/cmds/core/shutdown
	github.com/u-root/u-root/cmds/core/strings
	github.com/u-root/u-root/cmds/core/sync
	github.com/u-root/u-root/cmds/core/umount
	github.com/u-root/u-root/cmds/core/uname
	github.com/u-root/u-root/cmds/exp/acpicat
	github.com/u-root/u-root/cmds/exp/acpigrep
	github.com/u-root/u-root/cmds/exp/dmidecode
	github.com/u-root/u-root/cmds/exp/efivarfs
)

// The live image's shell (u-root's gosh, through knz/bubbline) deadlocks
// now and then when a typed line is entered: bubbletea v0.24.1's renderer
// sends its stop signal while holding the mutex its ticker goroutine is
// waiting for (standardRenderer.stop). v0.24.2 fixes exactly that, but its
// go.mod asks for bubbles v0.16.1, whose textinput no longer has the
// BackgroundStyle bubbline's newest version (2023-07-17) uses, so the
// requirement graph cannot select it. Hence bubbletea is replaced by the
// fixed release and bubbles kept at the version bubbline builds with. A
// replace makes `go install …@version` refuse this module: build from a
// clone (make build) until bubbline follows bubbles, then drop both.
replace (
	github.com/charmbracelet/bubbles => github.com/charmbracelet/bubbles v0.15.1-0.20230123181021-a6a12c4a31eb
	github.com/charmbracelet/bubbletea => github.com/charmbracelet/bubbletea v0.24.2
)
