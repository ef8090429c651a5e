"""Family module; rules are added here."""
