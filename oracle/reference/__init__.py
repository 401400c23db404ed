"""Reference semantics of every registered operation, by family.

* :mod:`.exact` -- exactly rounded IEEE elementwise operations on binary32 values;
* :mod:`.integer` -- exact Int32 elementwise operations;
* :mod:`.rounded` -- certified correctly rounded functions (MPFR, Ziv loop),
  cross-checked by the independent :mod:`.rounded_mpmath`;
* :mod:`.accumulate` and :mod:`.structured` -- reductions, matmul, conv_general,
  gather/scatter and sort/topk.
"""
