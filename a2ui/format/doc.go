// Package format renders numbers, currency amounts, dates and plural
// categories the way the A2UI basic catalog functions formatNumber,
// formatCurrency, formatDate and pluralize specify.
//
// It is locale-aware for a small built-in set of locales (Locale values
// come from LookupLocale; unknown tags fall back to en-US) and has no
// dependency outside the standard library. Dates use Unicode TR35 pattern
// letters (yyyy, MMM, EEEE, h, a, …) with quoted literals.
package format
