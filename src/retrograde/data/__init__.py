"""The zarr store: layout, packing, checksums, and reading values back."""
