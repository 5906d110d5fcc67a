package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/u-root/u-root/pkg/dhclient"
)

// NetWait bounds NetUp: the card's driver probing, the link coming up and
// DHCP's retries. A lab's DHCP server answers in well under a second; the
// rest is room for a slow link.
const NetWait = 60 * time.Second

// NetUp brings up the network for a run that posts its results
// (fwcheck.post=): it loads the GroupNet modules, waits for an Ethernet
// interface and configures the first one a DHCPv4 server answers on
// (u-root's pkg/dhclient), with its address, route and DNS servers. It
// returns a line for the console. It is not called otherwise, so a normal
// boot loads no network driver and sends nothing.
func (l *Live) NetUp(timeout time.Duration) (string, error) {
	for _, e := range l.net {
		if _, err := l.loadModule(e.Name); err != nil {
			l.Logf("fwcheck: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var ifs []string
	for {
		ifs = ethernets(l.path("sys/class/net"))
		if len(ifs) > 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(ifs) == 0 {
		return "", fmt.Errorf("network: no network interface appeared in %v (modules: %s)", timeout, moduleNames(l.net))
	}
	links, err := dhclient.Interfaces("^(" + strings.Join(ifs, "|") + ")$")
	if err != nil {
		return "", fmt.Errorf("network: %w", err)
	}
	// The lease's DNS servers go to /etc/resolv.conf.
	_ = os.MkdirAll(l.path("etc"), 0o755)
	var errs []error
	cfg := dhclient.Config{Timeout: 5 * time.Second, Retries: 5, LogLevel: dhclient.LogInfo}
	for r := range dhclient.SendRequests(ctx, links, true, false, cfg, 20*time.Second) {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Interface.Attrs().Name, r.Err))
			continue
		}
		if err := r.Lease.Configure(); err != nil {
			errs = append(errs, fmt.Errorf("%s: configuring the lease: %w", r.Interface.Attrs().Name, err))
			continue
		}
		return fmt.Sprintf("network: %s up, %v", r.Interface.Attrs().Name, r.Lease), nil
	}
	if len(errs) == 0 {
		errs = append(errs, ctx.Err())
	}
	return "", fmt.Errorf("network: no DHCP lease on %s: %w", strings.Join(ifs, ", "), errors.Join(errs...))
}

// ethernets lists the network interfaces in a /sys/class/net directory
// other than the loopback and virtual ones.
func ethernets(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if n == "lo" || strings.HasPrefix(n, "sit") || strings.HasPrefix(n, "dummy") {
			continue
		}
		if _, err := os.Stat(dir + "/" + n + "/device"); err != nil {
			continue // not backed by a device: virtual
		}
		out = append(out, n)
	}
	return out
}

func moduleNames(es []ModuleEntry) string {
	var n []string
	for _, e := range es {
		n = append(n, e.Name)
	}
	return strings.Join(n, " ")
}
