package load

import "fmt"

// DecodeAsRead decodes TOML layer data into v, a pointer to a zero
// partial, as a file layer is decoded: as it is read, without a tree. It
// reports how many values the document holds and whether it decoded it
// (false leaves it to the tree). Of a document it decodes, it also checks
// the tree it reads when positions are asked for: it holds no problem.
func DecodeAsRead(data []byte, lim Limits, valuesBefore int, v any) (values int, ok bool, err error) {
	d, values, ok := decodeTOML("layer.toml", data, lim.WithDefaults(), valuesBefore, v)
	if !ok {
		return 0, false, nil
	}
	if _, errs := d.lim.docOptions(0).ReadTOML(d.data); len(errs) > 0 {
		return values, true, fmt.Errorf("the document's tree has problems: %v", errs[0])
	}
	return values, true, nil
}

// DecodeTree decodes TOML layer data into v as DecodeAsRead does, through
// the document's tree.
func DecodeTree(data []byte, lim Limits, valuesBefore int, v any) (values int, err error) {
	d, values, err := parse("layer.toml", data, 0, lim.WithDefaults(), false, valuesBefore)
	if err != nil {
		return values, err
	}
	return values, d.Decode(v)
}
