package report

import (
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/tests"
)

// The HTML report is one self-contained file: html/template escapes every
// string from the document, the style and script are inline, the plots
// are inline SVG drawn here (a few dozen lines; a plotting library such as
// gonum/plot would bring fonts and image codecs into the binary), and a
// Content-Security-Policy forbids any fetch.

//go:embed html.tmpl
var htmlTemplate string

var htmlTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("report").Parse(htmlTemplate)) })

// htmlRow is one group of findings: one check's findings of one kind and
// label (as the text report groups them), with the advice said once.
type htmlRow struct {
	Check, Kind, Severity, Label, Advice, Spec string
	Messages                                   []htmlMessage
	Note                                       string // what explains or waives every message, when one thing does
	Count                                      int    // findings in the group, those the framework's cap left out included
	More                                       int    // of them, those not listed (Count less the messages)
}

type htmlMessage struct{ Text, Note string }

type htmlLabel struct {
	Severity, Label, Check string
	Count                  int
}

type htmlCheck struct {
	Result
	StatusWord string
}

type htmlCycles struct {
	Check    string
	Plots    []template.HTML
	Measures []measure // the columns of the table
	Cycles   []cycleRow
	Devices  bool // a slowest-device column
	// Omitted counts the cycles the table leaves out (past
	// maxTableCycles: the passed ones after the first).
	Omitted int
	// Unread counts the cycle records of a document past
	// maxCycleRecords: not read, so neither plotted nor listed.
	Unread int
}

type htmlDoc struct {
	D           *Document
	Examined    string
	Identity    string
	Lockdown    string
	Verdict     string
	VerdictKind string
	FailOn      string
	StatusLine  string
	Failing     []htmlLabel
	Rows        []htmlRow
	Checks      []htmlCheck
	CheckIDs    []string
	Cycles      []htmlCycles
	DMI         [][2]string
}

// cycleRow is one cycle of a cycling check (s3, reboot) as its result's
// data records it under "cycles".
// Its size is fixed (136 bytes and the notes), whatever the record held:
// a document of many cycles costs about its own size.
type cycleRow struct {
	Cycle  int
	Status string
	Values [len(measures)]float64 // in the order of measures; 0: not measured
	Device string                 // the slowest device (s3)
	Notes  []string               // problems, log findings
}

// value is the value of measure key, 0 when not measured.
func (c *cycleRow) value(key string) float64 {
	for i, m := range measures {
		if m.Key == key {
			return c.Values[i]
		}
	}
	return 0
}

// Cell is the value of measure key, formatted, or "" when not measured.
func (c cycleRow) Cell(key string) string {
	if v := c.value(key); v > 0 {
		return fmt.Sprintf("%.1f", v)
	}
	return ""
}

// Good reports whether the cycle went as it should.
func (c cycleRow) Good() bool { return c.Status == "passed" || c.Status == "completed" }

// measure is one per-cycle quantity the report plots, in ms: Key names its
// plot and column (the record's JSON key, which ReadJSON reads rows by),
// Of reads it from a cycle's typed record.
type measure struct {
	Key, Title string
	Of         func(*tests.CycleRecord) float64
}

// measures are the per-cycle quantities the cycling checks record, in the
// order they are plotted: the s3 check's, then the reboot check's.
var measures = [...]measure{
	{"asleep_ms", "Time asleep", func(c *tests.CycleRecord) float64 { return c.AsleepMS }},
	{"firmware_resume_ms", "Firmware resume (FPDT)", func(c *tests.CycleRecord) float64 { return c.FirmwareResumeMS }},
	{"kernel_resume_ms", "Kernel resume", func(c *tests.CycleRecord) float64 { return c.KernelResumeMS }},
	{"slowest_ms", "Slowest device resume", func(c *tests.CycleRecord) float64 { return c.SlowestMS }},
	{"request_to_kernel_ms", "Reboot request to next kernel", func(c *tests.CycleRecord) float64 { return c.RequestToKernelMS }},
	{"firmware_start_ms", "Firmware start (FPDT)", func(c *tests.CycleRecord) float64 { return c.FirmwareStartMS }},
	{"loader_load_ms", "OS loader load (FPDT)", func(c *tests.CycleRecord) float64 { return c.LoaderLoadMS }},
	{"loader_start_ms", "OS loader start (FPDT)", func(c *tests.CycleRecord) float64 { return c.LoaderStartMS }},
	{"exit_boot_services_ms", "ExitBootServices (FPDT)", func(c *tests.CycleRecord) float64 { return c.ExitBootServicesMS }},
}

// WriteHTML writes d as one self-contained HTML page: the verdict and
// summary, the machine's identity, every finding (filterable by severity
// and check), each check's status, and for runs with per-cycle data (s3)
// a plot per measure. failOn is the threshold the verdict is judged with
// when the document carries none.
func WriteHTML(w io.Writer, d *Document, failOn tests.Severity) error {
	h := htmlDoc{D: d, Examined: describeSource(d.Machine), Identity: machineName(d.Machine), Lockdown: LockdownLine(d.Machine), StatusLine: StatusCounts(d)}
	if d.Verdict != nil {
		h.Verdict, h.VerdictKind, h.FailOn = d.Verdict.Summary, d.Verdict.Result, d.Verdict.FailOn
	} else {
		v, k := Verdict(d, failOn)
		h.Verdict, h.VerdictKind, h.FailOn = v, k.String(), failOn.String()
	}
	if m := dmiFields(d.Machine); m != nil {
		for _, k := range []string{"sys_vendor", "product_name", "board_vendor", "board_name", "bios_vendor", "bios_version", "bios_date"} {
			if m[k] != "" {
				h.DMI = append(h.DMI, [2]string{k, m[k]})
			}
		}
	}
	for _, sev := range []tests.Severity{tests.Critical, tests.High, tests.Medium, tests.Low} {
		for _, r := range d.Results {
			for _, g := range groups(&r) {
				if g.class == "fail" && g.sev == sev {
					h.Failing = append(h.Failing, htmlLabel{sev.String(), g.label, r.ID, g.total})
				}
			}
		}
	}
	for _, r := range d.Results {
		h.Checks = append(h.Checks, htmlCheck{r, statusWord(r.Status)})
		h.CheckIDs = append(h.CheckIDs, r.ID)
		h.Rows = append(h.Rows, htmlRows(r)...)
	}
	sortRows(h.Rows)
	for _, r := range d.Results {
		if c, unread := cyclesOf(r); len(c) > 0 {
			sec := cycleSection(r.ID, c)
			sec.Unread = unread
			h.Cycles = append(h.Cycles, sec)
		}
	}
	if err := htmlTmpl().Execute(w, h); err != nil {
		return fmt.Errorf("writing html: %w", err)
	}
	return nil
}

// cyclesOf returns the per-cycle rows of a result: as ReadJSON read them
// from a document (fixed-size rows, so that a document of many cycles
// costs about its own size), or from the typed records a check kept in
// this process (tests.Result.Cycles).
func cyclesOf(r Result) (rows []cycleRow, unread int) {
	if l, ok := r.Data["cycles"].(*cycleList); ok {
		return l.Rows, l.Unread
	}
	cs := r.Cycles()
	if len(cs) > maxCycleRecords {
		cs, unread = cs[:maxCycleRecords], len(cs)-maxCycleRecords
	}
	rows = make([]cycleRow, 0, len(cs))
	for i := range cs {
		c := &cs[i]
		row := cycleRow{Cycle: c.Cycle, Status: c.Status, Device: c.SlowestDevice}
		for j, m := range measures {
			if v := m.Of(c); v > 0 && !math.IsInf(v, 0) {
				row.Values[j] = v
			}
		}
		row.Notes = append(append(row.Notes, c.Problems...), c.LogFindings...)
		rows = append(rows, row)
	}
	return rows, unread
}

// cycleSection plots every measure some cycle has, and tabulates them.
func cycleSection(check string, cs []cycleRow) htmlCycles {
	h := htmlCycles{Check: check, Cycles: cs}
	for i, m := range measures {
		for _, c := range cs {
			if c.Values[i] > 0 {
				h.Measures = append(h.Measures, m)
				h.Plots = append(h.Plots, plotSVG(m, cs))
				break
			}
		}
	}
	for _, c := range cs {
		h.Devices = h.Devices || c.Device != ""
	}
	if len(cs) > maxTableCycles {
		// every failed cycle (up to the cap), then the first passed ones
		bad := 0
		for _, c := range cs {
			if !c.Good() {
				bad++
			}
		}
		good := max(0, maxTableCycles-bad)
		var rows []cycleRow
		for _, c := range cs {
			if len(rows) == maxTableCycles {
				break
			}
			if !c.Good() || good > 0 {
				if c.Good() {
					good--
				}
				rows = append(rows, c)
			}
		}
		h.Cycles, h.Omitted = rows, len(cs)-len(rows)
	}
	return h
}

// maxTableCycles bounds the rows of a cycle table: a document of 300,000
// cycles took 34 s and a page of 35 MB; the JSON keeps them all.
const maxTableCycles = 2000

// plotSVG draws one measure over the cycles: a line through the measured
// cycles, a dot per cycle (red when the cycle failed) with its value in a
// tooltip, and labelled axes. Unmeasured cycles (0) leave a gap. Every
// string is escaped: device names come from the machine.
func plotSVG(m measure, cs []cycleRow) template.HTML {
	id, title := strings.TrimSuffix(strings.ReplaceAll(m.Key, "_", "-"), "-ms"), m.Title
	get := func(c cycleRow) float64 {
		if v := c.value(m.Key); v > 0 && v <= math.MaxFloat64 {
			return v
		}
		return 0 // unmeasured, negative, NaN or infinite: not drawn
	}
	const (
		w, hgt                   = 640, 240
		left, right, top, bottom = 64, 16, 28, 36
		plotW, plotH             = w - left - right, hgt - top - bottom
		ticks                    = 5
	)
	maxV, n := 0.0, 0
	for _, c := range cs {
		if v := get(c); v > 0 {
			maxV = math.Max(maxV, v)
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="plot"><svg id="plot-%s" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s per cycle" data-points="%d">`,
		html.EscapeString(id), w, hgt, w, hgt, html.EscapeString(title), n)
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s (ms)</text>`, left, html.EscapeString(title))
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty">not measured</text></svg></figure>`, left+20, top+plotH/2)
		return template.HTML(b.String())
	}
	step, nTicks := plotScale(maxV, ticks)
	top100 := min(step*float64(nTicks), math.MaxFloat64)
	x := func(i int) float64 {
		if len(cs) == 1 {
			return left + plotW/2
		}
		return left + float64(i)*plotW/float64(len(cs)-1)
	}
	y := func(v float64) float64 { return top + plotH - v/top100*plotH }
	// Axes and grid: a counted loop, whatever the values.
	for i := 0; i <= nTicks; i++ {
		v := step * float64(i)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`,
			left, left+plotW, y(v), y(v), left-6, y(v)+4, fmtNum(v))
	}
	every := max(1, len(cs)/10)
	for i, c := range cs {
		if i%every == 0 || i == len(cs)-1 {
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%d</text>`, x(i), top+plotH+16, c.Cycle)
		}
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d" text-anchor="middle">cycle</text>`, left+plotW/2, hgt-4)
	// The line, broken where a cycle was not measured.
	var seg []string
	flush := func() {
		if len(seg) > 0 {
			fmt.Fprintf(&b, `<polyline class="line" points="%s"/>`, strings.Join(seg, " "))
			seg = nil
		}
	}
	// Past maxPlotPoints cycles the line keeps each run of cycles' highest
	// value, and dots mark only the failed cycles (the table lists all).
	stride := max(1, (len(cs)+maxPlotPoints-1)/maxPlotPoints)
	for i := 0; i < len(cs); i += stride {
		hi, at := 0.0, i
		for j := i; j < min(i+stride, len(cs)); j++ {
			if v := get(cs[j]); v > hi {
				hi, at = v, j
			}
		}
		if hi > 0 {
			seg = append(seg, fmt.Sprintf("%.1f,%.1f", x(at), y(hi)))
		} else {
			flush()
		}
	}
	flush()
	dots := 0
	for i, c := range cs {
		v := get(c)
		if v <= 0 || stride > 1 && c.Good() || dots >= maxPlotPoints {
			continue
		}
		dots++
		cls := "pt"
		if !c.Good() {
			cls = "pt bad"
		}
		tip := fmt.Sprintf("cycle %d (%s): %s ms", c.Cycle, c.Status, fmtNum(v))
		if m.Key == "slowest_ms" && c.Device != "" {
			tip += ", " + c.Device
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="3" data-cycle="%d" data-value="%s"><title>%s</title></circle>`,
			cls, x(i), y(v), c.Cycle, fmtNum(v), html.EscapeString(tip))
	}
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

// maxPlotPoints bounds the points and dots of one plot: a document of
// 300,000 cycles drew 300,000 dots a measure.
const maxPlotPoints = 1000

// plotScale returns the value axis's tick step and number of ticks for
// values up to maxV: about ticks of them, never fewer than one nor more
// than 2·ticks, and finite whatever maxV is (NaN, ±Inf, subnormal, the
// largest float64): the top of the axis, step·n, is then finite too.
func plotScale(maxV float64, ticks int) (step float64, n int) {
	if !(maxV > 0) || math.IsInf(maxV, 0) {
		return 1, 1
	}
	step = niceStep(maxV / float64(ticks))
	if step <= 0 || math.IsInf(step*float64(2*ticks), 0) || maxV/step > float64(2*ticks) {
		// too small to step by powers of ten, or so large that the
		// rounded top overflows: the axis ends at maxV
		return maxV / float64(ticks), ticks
	}
	n = int(math.Ceil(maxV / step))
	return step, min(max(n, 1), 2*ticks)
}

// niceStep rounds a tick step up to 1, 2 or 5 times a power of ten.
func niceStep(s float64) float64 {
	if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(s)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= s {
			return m * p
		}
	}
	return 10 * p
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// htmlRows groups a result's findings (passes left out) as the text report
// does: by kind and label, in order of first appearance.
func htmlRows(r Result) []htmlRow {
	var rows []htmlRow
	for _, g := range groups(&r) {
		if g.class == string(tests.KindPass) {
			continue
		}
		sev := g.sev.String()
		if sev == "" {
			sev = "none"
		}
		row := htmlRow{Check: r.ID, Kind: g.class, Severity: sev, Label: g.label, Advice: g.advice, Spec: g.spec, Count: g.total}
		prefix := map[string]string{"waived": "waived: ", "explained": "explained by: "}[g.class]
		same := true
		for i, m := range g.messages {
			if i == tests.MaxPerLabel {
				// a document from elsewhere may list more than the
				// framework does: the rest are counted in More
				break
			}
			note := ""
			if g.why[i] != "" {
				note = prefix + g.why[i]
			}
			row.Messages = append(row.Messages, htmlMessage{m, note})
			same = same && g.why[i] == g.why[0]
		}
		if same && len(row.Messages) > 0 {
			row.Note = row.Messages[0].Note
			for i := range row.Messages {
				row.Messages[i].Note = ""
			}
		}
		row.More = row.Count - len(row.Messages)
		rows = append(rows, row)
	}
	return rows
}

// sortRows puts failures first, most severe first, then what the
// environment explains, what is waived, warnings and information; rows of
// equal rank keep the order of the checks.
func sortRows(rows []htmlRow) {
	classRank := map[string]int{"fail": 0, "explained": 1, "waived": 2, "warning": 3, "info": 4}
	sevRank := map[string]int{"critical": 0, "high": 1, "medium": 2, "low": 3, "none": 4}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if classRank[a.Kind] != classRank[b.Kind] {
			return classRank[a.Kind] < classRank[b.Kind]
		}
		return sevRank[a.Severity] < sevRank[b.Severity]
	})
}
