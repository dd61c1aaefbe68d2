"""What a person reads: terminal tables, progress, the HTML report."""
