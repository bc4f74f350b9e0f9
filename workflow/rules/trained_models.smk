# Stage: trained_models (rules to be written by the stage's issue).
