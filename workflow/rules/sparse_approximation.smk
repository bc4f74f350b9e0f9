# Stage: sparse_approximation (rules to be written by the stage's issue).
