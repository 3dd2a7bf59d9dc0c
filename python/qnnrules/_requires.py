"""The message for a module of the `torch` extra imported without it."""


def torch_extra(module, error):
    """The error to raise when importing ``module`` failed with ``error`` (a
    ModuleNotFoundError): a clear one naming the extra when torch or torchao is what is missing,
    else ``error`` itself."""
    missing = (error.name or "").split(".")[0]
    if missing not in ("torch", "torchao"):
        return error
    return ModuleNotFoundError(
        f"{module} needs PyTorch and torchao ({missing} is not installed): pip install 'qnnrules[torch]'",
        name=error.name)
