"""Operations: the monthly schedule entry point for scrapyd."""
