"""One module per `assay` command: argument handling to the core and back, exit codes."""
