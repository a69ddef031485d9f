"""Exported programs: the graph of ops (:mod:`.graph`), the program and its inputs (:mod:`.program`),
their stable JSON form (:mod:`.io`) and the layout guards a program carries (:mod:`.layout_guards`)."""
