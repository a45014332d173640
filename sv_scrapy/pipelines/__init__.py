"""Item pipelines, thin glue over ``core``: text -> PDF text -> hashes -> priors -> export."""
