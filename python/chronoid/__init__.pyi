from ._chronoid import *

__version__: str
__all__: list[str]
