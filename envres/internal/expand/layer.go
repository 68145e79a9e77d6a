package expand

// Layer is one copy-on-write layer of variables: a fork adds a layer on
// top of its base, and a merge writes the keys its branches changed back
// into the base. Lookups walk to the bottom. A layer holds its first few
// names in a slice (most branches change one or two), then in a map.
// It is not safe for concurrent use.
type Layer[E any] struct {
	parent *Layer[E]
	small  []layerEntry[E]
	m      map[string]VarState[E] // all of the layer's names, once there are more than smallLayer
}

type layerEntry[E any] struct {
	name string
	vs   VarState[E]
}

// smallLayer is how many names a layer holds before it makes a map.
const smallLayer = 8

// NewLayer returns an empty layer on top of parent (nil for none).
func NewLayer[E any](parent *Layer[E]) *Layer[E] { return &Layer[E]{parent: parent} }

// own returns the variable as this layer (not its parents) holds it.
func (l *Layer[E]) own(name string) (VarState[E], bool) {
	if l.m != nil {
		v, ok := l.m[name]
		return v, ok
	}
	for i := range l.small {
		if l.small[i].name == name {
			return l.small[i].vs, true
		}
	}
	return VarState[E]{}, false
}

// Put sets name in this layer.
func (l *Layer[E]) Put(name string, v VarState[E]) {
	if l.m != nil {
		l.m[name] = v
		return
	}
	for i := range l.small {
		if l.small[i].name == name {
			l.small[i].vs = v
			return
		}
	}
	if len(l.small) < smallLayer {
		if l.small == nil {
			l.small = make([]layerEntry[E], 0, 2)
		}
		l.small = append(l.small, layerEntry[E]{name, v})
		return
	}
	l.m = make(map[string]VarState[E], 2*smallLayer)
	for _, e := range l.small {
		l.m[e.name] = e.vs
	}
	l.small = nil
	l.m[name] = v
}

// Each calls f for every name this layer (not its parents) holds.
func (l *Layer[E]) Each(f func(name string, v VarState[E])) {
	if l.m != nil {
		for k, v := range l.m {
			f(k, v)
		}
		return
	}
	for _, e := range l.small {
		f(e.name, e.vs)
	}
}

// Get returns the variable as the innermost layer that holds it holds it.
func (l *Layer[E]) Get(name string) (VarState[E], bool) {
	for ; l != nil; l = l.parent {
		if v, ok := l.own(name); ok {
			return v, true
		}
	}
	return VarState[E]{}, false
}

// All returns every variable visible from l, innermost winning.
func (l *Layer[E]) All() map[string]VarState[E] {
	var layers []*Layer[E]
	for ; l != nil; l = l.parent {
		layers = append(layers, l)
	}
	out := map[string]VarState[E]{}
	for i := len(layers) - 1; i >= 0; i-- {
		layers[i].Each(func(k string, v VarState[E]) { out[k] = v })
	}
	return out
}
