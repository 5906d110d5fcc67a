package aml

import (
	"sort"
	"testing"
)

func TestZZCountOps(t *testing.T) {
	ms := loadMachines(t)
	cnt := map[Op]int{}
	total := 0
	leaf := 0
	for _, m := range ms {
		var all [][]*Term
		for _, tb := range m.ns.Tables {
			all = append(all, tb.Code)
		}
		for _, l := range all {
			WalkTerms(l, func(x *Term) bool {
				cnt[x.Op]++
				total++
				if len(x.kids) == 0 {
					leaf++
				}
				return true
			})
		}
	}
	type kv struct {
		o Op
		n int
	}
	var s []kv
	for o, n := range cnt {
		s = append(s, kv{o, n})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].n > s[j].n })
	t.Logf("total %d leaf %d", total, leaf)
	for _, x := range s[:25] {
		t.Logf("%-20s %8d", x.o, x.n)
	}
}

func TestZZCountByte(t *testing.T) {
	ms := loadMachines(t)
	zero, all := 0, 0
	for _, m := range ms {
		for _, tb := range m.ns.Tables {
			WalkTerms(tb.Code, func(x *Term) bool {
				if x.Op == OpByteConst {
					all++
					if x.Offset == 0 {
						zero++
					}
				}
				return true
			})
		}
	}
	t.Logf("byteconst %d, synthesized %d", all, zero)
}
