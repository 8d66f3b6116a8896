// The stand-in engine's implementation as one translation unit: compile this
// file, or the Impl/*.cpp files one by one (not both). See README.md.
#include "Impl/Core.cpp"
#include "Impl/Strings.cpp"
#include "Impl/Objects.cpp"
#include "Impl/World.cpp"
#include "Impl/Parallel.cpp"
#include "Impl/Render.cpp"
#include "Impl/Modules.cpp"
