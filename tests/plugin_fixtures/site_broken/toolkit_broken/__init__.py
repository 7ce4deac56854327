"""A plugin that cannot be imported: the host must warn and carry on."""

import a_module_that_does_not_exist_anywhere  # noqa: F401
