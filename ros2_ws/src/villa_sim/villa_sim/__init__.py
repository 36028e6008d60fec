"""The embedded simulator: rcssservermj (rcsssmj) with our Nao on a SimSpark-sized field."""
