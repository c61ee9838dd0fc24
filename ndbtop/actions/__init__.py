"""Actions that change the cluster: their exact commands, guards, execution and audit."""
