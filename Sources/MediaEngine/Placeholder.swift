enum MediaEnginePlaceholder {}
