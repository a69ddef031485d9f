"""torchvision 0.28's wheel does not import beside torch's CPU wheel: shimmed here, before any test imports it.

Its ``torchvision/_meta_registrations.py`` registers fake kernels for ``torchvision::nms``, an
operator the CPU torch wheel lacks; :func:`~tests.real_models.models.shim_torchvision` puts an
empty module in its place (test-only: the library never imports torchvision). timm and
transformers import torchvision, so this comes first.
"""

from .models import shim_torchvision

shim_torchvision()
