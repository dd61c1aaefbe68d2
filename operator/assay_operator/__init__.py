"""Assay operator: reconciles Evaluation resources into runner Jobs and writes the verdict back."""
