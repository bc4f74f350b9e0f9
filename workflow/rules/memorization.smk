# Stage: memorization (rules to be written by the stage's issue).
