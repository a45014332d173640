"""The figure grammar every stage shares: values (what a figure is and how it is written), locale
(native digits, invisible marks, a page's locale hints) and cldr (CLDR's tables through Babel, cached
on disk). Below both the claims (stage 1) and the page (stage 2), which read figures the same way."""
