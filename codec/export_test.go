package codec

// HoldsTree reports whether d holds its tree now, rather than reading it
// again when a position is asked for.
func (d *Document) HoldsTree() bool { return d.d != nil }
