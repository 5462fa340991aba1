package a2ui

import "fmt"

// CatalogSelection describes a surface's catalogs for SelectCatalog.
type CatalogSelection struct {
	SurfaceID        string
	DefaultCatalogID string
	// SupportedCatalogIDs lists the catalogs the surface may use.
	SupportedCatalogIDs []string
	// Versions gives the protocol version of catalogs that declare one.
	Versions map[string]Version
	// SurfaceVersion is the surface's protocol version.
	SurfaceVersion Version
}

// SelectCatalog picks the catalog for a component or function call that
// names requested (empty: the surface default). It fails with a
// CatalogError when the catalog is not supported by the surface or when
// the surface mixes catalogs of different protocol versions.
func SelectCatalog(sel CatalogSelection, requested string) (string, error) {
	for _, id := range sel.SupportedCatalogIDs {
		if v, ok := sel.Versions[id]; ok && sel.SurfaceVersion != "" && v.Family() != sel.SurfaceVersion.Family() {
			return "", perr(CategoryCatalog, CodeCatalogNotFound, ErrCatalogNotFound, sel.SurfaceID, "/catalogId",
				"Protocol version mismatch: cannot mix catalog '%s' (%s) with surface version %s.", id, v, sel.SurfaceVersion)
		}
	}
	if requested == "" {
		return sel.DefaultCatalogID, nil
	}
	for _, id := range sel.SupportedCatalogIDs {
		if id == requested {
			return id, nil
		}
	}
	return "", perr(CategoryCatalog, CodeCatalogNotFound, ErrCatalogNotFound, sel.SurfaceID, "/catalogId",
		"%s", fmt.Sprintf("Catalog '%s' is not supported by surface '%s'.", requested, sel.SurfaceID))
}
