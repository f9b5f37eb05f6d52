"""Rule engines and scoring cores of the table games tablescore knows."""
