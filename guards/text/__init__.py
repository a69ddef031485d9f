"""Guards as text: the lexer and parser of guard expressions and sources, printers to sympy,
torch and source text, escaping, and the JSON form of ranges."""
