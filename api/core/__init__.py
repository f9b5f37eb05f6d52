"""Service plumbing: settings, database, problem details, middleware, storage, scoring pool."""
