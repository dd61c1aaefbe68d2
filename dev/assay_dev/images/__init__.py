"""Assay's container images: built with buildah from images/*/Containerfile, cached by content, recorded by
digest (`python -m assay_dev.images`, make images). See docs/images.md."""
