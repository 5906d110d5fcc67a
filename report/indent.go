package report

// indentJSON appends to dst the compact JSON text src (what json.Marshal
// writes: no white space outside strings) indented as json.Indent does
// with no prefix and two spaces: a newline and the depth's indentation
// after each '{', '[' and ',', and before each '}' and ']', ": " after
// each key, and "{}" and "[]" for empty ones.
//
// Why not json.Encoder's SetIndent (issue 24): it runs encoding/json's
// validating scanner over every byte of the output again, about 40
// instructions a byte; on `fwcheck run --category acpi` over a small
// dump that was 14% of the whole process. Marshal's output is already
// valid, so this only tracks strings. FuzzIndentJSON and the tests hold
// it to json.Indent's output.
func indentJSON(dst, src []byte) []byte {
	depth := 0
	needIndent := false // after '{' or '[': indent unless it closes at once
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = appendNewline(dst, depth)
		}
		switch c {
		case '"':
			// copy the string whole, up to its closing quote
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				dst = appendNewline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
