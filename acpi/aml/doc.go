// Package aml parses ACPI Machine Language — the DSDT and SSDTs — into one
// ACPI namespace, the way an OS loads them, and evaluates what can be
// evaluated without the hardware.
//
// # What is in
//
// Load takes the definition blocks in load order (DSDT first, then the
// SSDTs; Definitions picks them from an acpi.Tables) and builds a
// Namespace: every Scope, Device, Method (argument count, Serialized,
// SyncLevel), Name with its data object (integer, string, buffer,
// package), Alias, OperationRegion and DataTableRegion, the field units of
// Field, IndexField and BankField (offset, width, access), Processor,
// PowerResource, ThermalZone, Mutex, Event and CreateXxxField buffer
// field. External declarations create placeholders that a later table's
// definition fills in. Names are resolved by ACPI 6.5 §5.3: `\` is the
// root, each `^` one level up, and only a single NameSeg without prefix is
// searched for in the enclosing scopes.
//
// Method bodies are parsed into a tree of Terms, as is the table-level
// code (If blocks outside methods). Namespace.Walk, Lookup and Resolve
// reach the objects; WalkTerms the trees; Namespace.Dump prints the
// namespace (path, type, a Name's value, where it is declared), the view
// to keep beside iasl's disassembly.
//
// # Forward references
//
// In AML a method call is a bare NameString followed by as many TermArgs
// as the method takes, and nothing in the byte stream says how many; the
// parser must know the callee. Firmware calls methods declared later in
// the table and in other tables. Load does what ACPICA does: method bodies
// are deferred. Pass 1 parses every table's top level in load order,
// declaring objects and recording each method's body range; pass 2 parses
// the bodies once all declarations of all tables are known; pass 3
// re-resolves the references that named nothing when parsed (a _PRT
// package naming a link device declared further down) and reports those
// still unresolved. A call at load time to a method declared later
// (outside any method) cannot be parsed right and is a ForwardCall
// problem; ACPICA would fail it too. Calls resolve against the loaded
// namespace, not against the calling table's own External: when the two
// disagree, both a Conflict and whatever misparse follows are reported,
// as ACPICA would misparse it when running the method.
//
// # Errors are values
//
// Load never fails and never panics on input. Each Problem carries the
// table, the offset from the table's start (header included, as in iasl
// listings) and a Kind: Malformed (unknown opcode, a package length or
// name string running past its end, an unterminated string, nesting deeper
// than 256), BadName, Duplicate, Unresolved, ExternalOnly, Conflict and
// ForwardCall. A malformed object is skipped to the end of the innermost
// enclosing object that has a package length (a method, device, scope,
// If block, package or buffer) and parsing goes on after it; at the top
// level of a table, without such a bound, the rest of the table is lost.
// A name declared twice outside conditional code keeps its first
// declaration; a second one inside If/Else, or inside a method body, is
// not reported (only one runs). References inside an If whose predicate
// tests them with CondRefOf are not reported either. Time and memory are
// linear in the input: each term consumes at least one byte, lists are
// never allocated from counts in the input, nesting is capped, and a
// table reports at most 500 problems.
//
// # Evaluation
//
// An Evaluator (NewEvaluator) runs the code of the namespace without the
// machine: Name values, and methods built of constants, Names, Args,
// Locals, arithmetic and logic, buffers and packages, the conversions
// (ToInteger, ToString, ToBuffer, ToHexString, ToDecimalString, Mid,
// Concatenate, ConcatenateResTemplate), CreateXxxField, Index, DerefOf,
// RefOf, CondRefOf, Match, SizeOf, ObjectType, Store and CopyObject,
// If/Else/While/Break/Continue/Return and method calls. Integers are 32
// bits wide when the DSDT's revision is below 2. \_OSI answers as Linux
// does (Options.OSI changes that; Linux says no to "Linux"), \_OS is
// "Microsoft Windows NT", \_REV is 2. OperationRegion field reads return
// a configurable fake (Options.ReadField; zeros by default) and
// FieldReads tells whether a result depended on one; writes to fields,
// Timer, Events and table loads are EvalNotStatic errors, never guessed.
// Notify, Sleep, Stall, Acquire and Release do nothing. A step limit and
// a call depth limit make a loop that never ends an EvalStepLimit error,
// not a hang; the evaluation budget (budget.go) bounds each evaluation's
// bytes allocated and wall time too, and a run's evaluations together
// (RunBudget), past which an evaluation is an EvalBudget error. Load keeps
// a bounded number of terms (TooLarge beyond it). Stores into Names, buffer fields and package elements live
// in the Evaluator, never in the namespace. DecodeResources decodes the
// resource templates _CRS returns. RunREG runs the _REG methods, as an OS
// does once it can reach each address space. Objects declared by
// load-time If blocks are marked Conditional: ACPICA creates them only
// when the condition holds on the machine.
//
// # What is out
//
// Tables the code loads at run time (Load, LoadTable) are loaded when
// they are among the tables given, after the static ones (runtime.go);
// what an absent one may define is RunTimeOnly. A single NameSeg search
// goes past External placeholders, which the OS does not create.
// Objects that only exist when code runs — objects a method declares —
// are not in the namespace, except
// that the declarations inside method bodies are kept with InMethod set
// so that names in the body resolve (the evaluator gives them their
// values when the method runs). The evaluator does not run _INI methods
// or table-level code by itself. There is no ASL output.
//
// # Speed (issue 24)
//
// Profiled over every ACPI check on the 156 corpus dumps in one process
// (BenchmarkAllACPIChecksCorpus in tests/all, pprof CPU and allocation
// profiles): loading the namespaces was a third of the CPU, evaluating
// every predefined object (the methods check) another third, parsing the
// dump text a sixth, and the garbage collector ran beside all of them on
// the other core, for 1.04 GB and 9.0 M allocations a pass. What changed:
//
//   - Integer objects are shared (see Integer): a third of the bytes
//     allocated were integer objects, 2.9 M a pass, most of them 0, 1 and
//     the all-ones True. The evaluator never writes into an integer
//     object (a store replaces the value; buffers, which are written in
//     place, are still copied), so copying one returns it.
//   - The emulated OperationRegion read built the field's path string on
//     every read, to look up recorded values there were none of (a fifth
//     of evaluating).
//   - A term is written into its slab field by field: assigning the whole
//     104-byte struct went through the collector's bulk write barrier
//     whenever it was marking.
//   - The scan for run-time table loads walks every term only when the
//     parser met a Load or LoadTable.
//
// Together: 1.04 GB → 0.58 GB and 9.0 M → 3.0 M allocations a pass, and
// 30–35% less CPU (the README's performance table has the figures).
//
// A second round (issue 25), profiled the same way:
//
//   - Load loaded 7 of the 156 dumps twice, with half the corpus's AML:
//     once in the given order to find the tables the code loads at run
//     time, once in the order with those last. A probe now finds them
//     (see Load: the top levels without field lists and string-less
//     packages, and only the method bodies holding a Load or LoadTable
//     opcode), 47 MB allocated for the 25 dumps that have Load, against
//     208 MB for loading them; the probing Load builds the same
//     namespaces as the two loads on every corpus dump
//     (TestLoadProbeCorpus).
//   - A one-segment NameString is the table's bytes (a quarter of the
//     allocations); CondRefOf guard matching builds no path strings for a
//     single NameSeg; the evaluator's integer objects come from a slab;
//     Namespace.Walk and ErrorKind allocate nothing.
//   - The dump text is inflated with klauspost/compress (acpi): the
//     corpus's full dumps are gzip files, its input format, not a cost
//     to remove.
//
// That made 584 → 444 MB and 2.97 M → 1.47 M allocations a pass, and
// about 10% less CPU. Method bodies are still parsed when loading, not
// when first evaluated: the aml-parse check reports the problems of
// every body (unresolved names, malformed code), so every body is
// parsed once per machine anyway.
//
// A third round (issues 24/25) made the terms smaller, as the collector
// and the page faults of fresh memory were a third of a pass's CPU
// (GOGC=400, tried as a probe only, cut the CPU of five passes by 37%,
// the system time by 60%), and both follow the bytes allocated:
//
//   - A Term is 56 bytes, not 104 (see Term): the operands and the body
//     are one list, the operands first, which Args and Body cut (two
//     slice headers were 48 bytes, and the If, While, Package and field
//     terms that have both paid for two lists); that list is held as a
//     pointer to its first element and two 32-bit counts, not a 24-byte
//     slice header; a String's or Buffer's bytes are held in Name, as no
//     term has both. Args and Body became methods, an exported API
//     change for the few checks outside this package that read terms.
//   - The immediate byte operands (method flags, External's type and
//     argument count, region spaces, field flags) share 256 constant
//     terms: 94,000 of the 1.9 M terms of the 36 full dumps.
//   - Nodes come from slabs as terms do and are 160 bytes, not 176 (the
//     small fields packed into one word): 208,000 allocations fewer per
//     load of the 36 full dumps.
//   - A scope's child index is keyed by the NameSeg as an integer (a
//     string-keyed map's lookups were 4% of loading).
//   - Only method bodies whose bytes hold a Load or LoadTable opcode are
//     walked for them (Method.MayLoadTables, Namespace.HasLoadTerms):
//     109 of the 35,000 bodies of the corpus.
//   - Outside this package: ParseDump (acpi) keeps its readers and its
//     gzip state between dumps (14 MB a pass), and decodes hex digits
//     through a table.
//
// BenchmarkAllACPIChecksCorpus (tests/all): 444 → 320 MB and 1.47 M →
// 1.20 M allocations a pass; the CPU of five passes (and the benchmark's
// set-up), old and new test binaries run alternately on the shared
// machine at load 8–13: 7.5–8.7 → 6.7–6.9 s (user+sys). What a loaded
// namespace keeps per byte of AML (TestMemoryPerAMLByte): 37 / 46 / 55
// → 19 / 28 / 34 bytes (min / median / max over the corpus); the dense
// 31 MiB table 60.1 → 37.8 MB, 115 → 72 bytes a term. BenchmarkLoadCorpus:
// 327 → 222 MB and 719,000 → 453,000 allocations a load of the 36 full
// dumps; ten loads with the set-up 7.8–9.4 → 6.1–7.1 CPU-s (load 8–11).
// A call's frame is reused once the call returns (nothing points into
// one): 320 → 312 MB and 1.20 → 1.135 M allocations a pass. On the quiet
// machine (2026-12-02 22:55, load 0.2–1.1) a pass takes 0.88–0.94 s, under
// the 1 s the issues ask for (1.25–1.30 s before this round), about one
// CPU-second of it with the collector on the second core. What is left is
// the parser's 2.2 M terms a pass, evaluating every predefined object
// (its 104-byte Objects), inflating the gzip dumps (klauspost's inflate,
// 7% of a pass), the collector and the page faults of memory the runtime
// returns between dumps.
//
// # Why a new package
//
// No maintained pure-Go AML parser was found to build on. gokrazy has
// none; u-root reads ACPI tables (pkg/acpi, acpicat, acpigrep) but does
// not parse AML; hobby Go kernels such as gopher-os carried AML
// interpreters tied to their own runtime, unmaintained. ACPICA, the
// reference implementation, is C (dual BSD/GPL) and fwts (GPL) links it;
// none of their code is used here, only the ACPI 6.5 specification (§5.3
// namespace, §20 AML grammar). iasl from Debian's
// acpica-tools serves as an oracle in tests only.
package aml
