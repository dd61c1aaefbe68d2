"""Reading and writing what an evaluation leaves behind: answer trees, result files, run configs, MLflow."""
