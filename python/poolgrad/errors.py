"""The exception every poolgrad operator raises when the library refuses a call."""


class PoolgradError(RuntimeError):
    """A non-zero aclnn status from the library.

    ``status`` is the aclnn status code (161001 null argument, 161002 invalid argument, 361001 runtime
    error, ...), ``message`` the library's ``aclGetRecentErrMsg()`` text naming the argument, the rule and
    the values, and ``function`` the C function that returned it.
    """

    def __init__(self, status: int, message: str, function: str):
        self.status = int(status)
        self.message = message
        self.function = function
        super().__init__(f"{function} returned {self.status}: {message}")
