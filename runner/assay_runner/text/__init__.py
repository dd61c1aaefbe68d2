"""Reading answer text: normalising, tokenising, matching phrases, reading clauses for forbidden advice."""
