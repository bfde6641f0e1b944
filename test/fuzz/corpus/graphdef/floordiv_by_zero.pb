
2
xPlaceholder*
dtype0*
shape
:
2
yPlaceholder*
dtype0*
shape
:

zFloorDivxy*
T0"ª