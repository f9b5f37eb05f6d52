"""Beer & Pretzels: the component catalogue and the scoring core (table-plane geometry, mm)."""
