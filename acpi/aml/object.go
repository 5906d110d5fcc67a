package aml

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TypeReference is the type of an Object that refers to something else: a
// namespace object (a package element naming a device, RefOf), or an
// element of a package, buffer or string (Index).
const TypeReference Type = 34

func init() { typeNames[TypeReference] = "Reference" }

// Object is a value the evaluator computes: an Integer, String, Buffer,
// Package, a Reference, or TypeAny for an uninitialised one.
type Object struct {
	Type Type
	Int  uint64
	Str  string
	// Buf is a Buffer's bytes. Buffer fields created over a buffer write
	// into it.
	Buf []byte
	// Pkg holds a Package's elements; nil elements are uninitialised.
	Pkg []*Object
	// Ref is the namespace object a Reference names (when it is not an
	// Index reference).
	Ref *Node
	// In and Idx describe an Index reference: element Idx of In (a
	// package, buffer or string).
	In  *Object
	Idx int
}

// Integer returns an integer object. Integer objects are never changed
// once made (a store replaces the object, it does not write into it), so
// the values 0-255 and the two all-ones values, which are most of what
// evaluation yields (every comparison's True and False among them), come
// from one shared table instead of an allocation each: evaluating every
// predefined object of the corpus made 2.9 million integer objects a
// pass, a third of what it allocated.
func Integer(v uint64) *Object {
	switch {
	case v < uint64(len(sharedInts.tab)):
		return &sharedInts.get()[v]
	case v == 0xFFFFFFFF:
		return &ones32
	case v == ^uint64(0):
		return &ones64
	}
	return &Object{Type: TypeInteger, Int: v}
}

// The shared integer objects: static data, and a table filled on first
// use (nothing at package initialisation).
var (
	ones32     = Object{Type: TypeInteger, Int: 0xFFFFFFFF}
	ones64     = Object{Type: TypeInteger, Int: ^uint64(0)}
	sharedInts = table256[Object]{make: func(i int) Object { return Object{Type: TypeInteger, Int: uint64(i)} }}
)

// table256 holds 256 shared values (the integer objects and immediate byte
// terms 0…255), built on first use rather than at package initialisation.
type table256[T any] struct {
	once sync.Once
	make func(i int) T
	tab  [256]T
}

func (t *table256[T]) get() *[256]T {
	t.once.Do(func() {
		for i := range t.tab {
			t.tab[i] = t.make(i)
		}
	})
	return &t.tab
}

// String returns a string object.
func String(s string) *Object { return &Object{Type: TypeString, Str: s} }

// Buffer returns a buffer object holding b.
func Buffer(b []byte) *Object { return &Object{Type: TypeBuffer, Buf: b} }

// PackageOf returns a package object of the elements.
func PackageOf(elems ...*Object) *Object { return &Object{Type: TypePackage, Pkg: elems} }

// copy returns a deep copy (packages and buffers are copied; references
// keep pointing at the same thing).
func (o *Object) copy() *Object {
	if o == nil {
		return nil
	}
	if o.Type == TypeInteger {
		return o // integers are never changed in place (see Integer)
	}
	c := *o
	switch o.Type {
	case TypeBuffer:
		c.Buf = append([]byte(nil), o.Buf...)
	case TypePackage:
		c.Pkg = make([]*Object, len(o.Pkg))
		for i, e := range o.Pkg {
			c.Pkg[i] = e.copy()
		}
	}
	return &c
}

// String renders the object roughly as ASL would write it; long values
// are cut short.
func (o *Object) String() string {
	var b strings.Builder
	o.write(&b, 0)
	s := b.String()
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

func (o *Object) write(b *strings.Builder, depth int) {
	if o == nil {
		b.WriteString("Uninitialized")
		return
	}
	if depth > 8 || b.Len() > 400 {
		b.WriteString("…")
		return
	}
	switch o.Type {
	case TypeInteger:
		b.WriteString("0x")
		b.WriteString(hex(o.Int))
	case TypeString:
		b.WriteString(strconv.Quote(o.Str))
	case TypeBuffer:
		fmt.Fprintf(b, "Buffer (%d) {", len(o.Buf))
		for i, c := range o.Buf {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > 400 {
				break
			}
			fmt.Fprintf(b, "0x%02X", c)
		}
		b.WriteByte('}')
	case TypePackage:
		fmt.Fprintf(b, "Package (%d) {", len(o.Pkg))
		for i, e := range o.Pkg {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b, depth+1)
			if b.Len() > 400 {
				break
			}
		}
		b.WriteByte('}')
	case TypeReference:
		if o.Ref != nil {
			b.WriteString("RefOf (")
			b.WriteString(displayPath(o.Ref.Path()))
			b.WriteByte(')')
		} else {
			b.WriteString("Index (…, ")
			b.WriteString(strconv.Itoa(o.Idx))
			b.WriteByte(')')
		}
	case TypeAny:
		b.WriteString("Uninitialized")
	default:
		b.WriteString(o.Type.String())
	}
}
