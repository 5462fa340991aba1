package a2ui

import "sort"

// SurfaceChange tells a renderer what to repaint on one surface after a
// batch of messages (or a user write).
type SurfaceChange struct {
	Surface   *Surface
	SurfaceID string
	// Created: the surface is new (build everything).
	Created bool
	// Deleted: the surface is gone (tear everything down).
	Deleted bool
	// Tree: the root node changed; rebuild the whole surface.
	Tree bool
	// Theme: the theme changed.
	Theme bool
	// Rebuilt lists nodes whose children changed (re-create their child
	// widgets; children that are still live keep their identity).
	Rebuilt []*Node
	// Updated lists nodes whose properties (or resolved bindings) may have
	// changed: refresh just these widgets.
	Updated []*Node
	// DataPaths lists the data paths written, in order.
	DataPaths []string
	// Touched counts the bindings an incremental data update visited
	// (a measure of update cost).
	Touched int
}

// Change is one batched notification: everything a batch of messages (or
// one user write) changed, per surface.
type Change struct {
	Surfaces []SurfaceChange
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return len(c.Surfaces) == 0 }

// Surface returns the change for one surface (nil if none).
func (c Change) Surface(id string) *SurfaceChange {
	for i := range c.Surfaces {
		if c.Surfaces[i].SurfaceID == id {
			return &c.Surfaces[i]
		}
	}
	return nil
}

type surfaceChange struct {
	s                          *Surface
	order                      int
	created, deleted, tree, th bool
	rebuilt, updated           map[*Node]bool
	paths                      []string
	touched                    int
}

type changeSet struct {
	bySurface map[string]*surfaceChange
	n         int
}

func newChangeSet() *changeSet { return &changeSet{bySurface: map[string]*surfaceChange{}} }

func (cs *changeSet) get(s *Surface) *surfaceChange {
	c, ok := cs.bySurface[s.id]
	if !ok || c.s != s {
		if ok && c.s != s && c.deleted {
			// Deleted then re-created in one batch: report as created.
			c = &surfaceChange{s: s, order: c.order, created: true, rebuilt: map[*Node]bool{}, updated: map[*Node]bool{}}
		} else {
			c = &surfaceChange{s: s, order: cs.n, rebuilt: map[*Node]bool{}, updated: map[*Node]bool{}}
			cs.n++
		}
		cs.bySurface[s.id] = c
	}
	return c
}

func liveSorted(m map[*Node]bool) []*Node {
	out := make([]*Node, 0, len(m))
	for n := range m {
		if n.live {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].depth != out[j].depth {
			return out[i].depth < out[j].depth
		}
		return out[i].key < out[j].key
	})
	return out
}

func (cs *changeSet) build() Change {
	var out Change
	list := make([]*surfaceChange, 0, len(cs.bySurface))
	for _, c := range cs.bySurface {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
	for _, c := range list {
		sc := SurfaceChange{Surface: c.s, SurfaceID: c.s.id, Created: c.created, Deleted: c.deleted, Tree: c.tree, Theme: c.th, DataPaths: c.paths, Touched: c.touched}
		if c.deleted {
			sc.Created, sc.Tree = false, false
		} else if !c.created && !c.tree {
			sc.Rebuilt = liveSorted(c.rebuilt)
			sc.Updated = liveSorted(c.updated)
		}
		out.Surfaces = append(out.Surfaces, sc)
	}
	return out
}
